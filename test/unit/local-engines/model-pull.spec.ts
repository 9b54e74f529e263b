/**
 * The downloader and the pull against a fake Hub and its CDN on loopback (test/fakes/hf-hub.fake.ts), with
 * files of random bytes: resume with a Range, the sha256 check, the size cap, the token kept to the Hub's
 * host, the redirect limit and the Hub's errors worded for a user.
 */
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SilentProgress } from '../../../src/local-engines/hub/download-progress';
import { FileDownloader } from '../../../src/local-engines/hub/file-download.service';
import { HubHttpClient } from '../../../src/local-engines/hub/hub-http.client';
import { ModelPuller, type PullOptions } from '../../../src/local-engines/hub/model-pull.service';
import { MANIFEST_FILE, readManifest } from '../../../src/local-engines/hub/pull-manifest';
import { HfHubFake } from '../../fakes/hf-hub.fake';
import { closedPort } from '../../e2e/helpers/no-engines';

const REPO = 'tiny-org/tiny-reranker';
const GATED = 'tiny-org/gated-reranker';
const TOKEN = 'hf_unit_test_token_7f3a';
const MODEL = 'onnx/model.onnx';
const MODEL_BYTES = 64 * 1024;

let scratch: string;
let hub: HfHubFake;
let source: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'system1-pull-unit-'));
  source = path.join(scratch, 'source');
  mkdirSync(path.join(source, 'onnx'), { recursive: true });
  writeFileSync(path.join(source, 'config.json'), JSON.stringify({ model_type: 'bert' }));
  writeFileSync(path.join(source, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 64 }));
  writeFileSync(path.join(source, 'tokenizer.json'), JSON.stringify({ model: { vocab: { a: 0 } } }));
  writeFileSync(path.join(source, MODEL), randomBytes(MODEL_BYTES));
  writeFileSync(path.join(source, 'onnx', 'model_quantized.onnx'), randomBytes(MODEL_BYTES / 4));
  hub = await new HfHubFake().addRepo(REPO, source).addRepo(GATED, source, { token: TOKEN }).start();
});

afterAll(async () => {
  await hub.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let models: string;
beforeEach(() => {
  models = mkdtempSync(path.join(scratch, 'models-'));
  hub.hits.length = 0;
  hub.truncate = undefined;
  hub.cdnRedirect = undefined;
  hub.wrongBytes.clear();
  hub.missing.clear();
  hub.hideSize.clear();
});

function puller(): ModelPuller {
  const http = new HubHttpClient();
  return new ModelPuller(http, new FileDownloader(http, new SilentProgress()));
}

function options(extra: Partial<PullOptions> = {}): PullOptions {
  return {
    repo: REPO,
    revision: 'main',
    variant: 'float32',
    maxFileBytes: 2 ** 31,
    modelsDir: models,
    env: { HF_ENDPOINT: hub.hub.href },
    log: () => undefined,
    ...extra,
  };
}

const folderOf = (repo = REPO) => path.join(models, ...repo.split('/'));
const stagingOf = (repo = REPO) => `${folderOf(repo)}.partial`;
const gets = (server: 'hub' | 'cdn', file?: string) => hub.hitsOf(server, file).filter((hit) => hit.method === 'GET');

describe('a pull', () => {
  it('fetches the files the server reads, the LFS ones from the CDN, checks them, and leaves a manifest', async () => {
    const outcome = await puller().pull(options());
    expect(outcome).toMatchObject({ folder: folderOf(), upToDate: false });
    for (const file of ['config.json', 'tokenizer_config.json', 'tokenizer.json', MODEL]) {
      expect(readFileSync(path.join(folderOf(), file))).toEqual(readFileSync(path.join(source, file)));
    }
    expect(existsSync(path.join(folderOf(), 'onnx', 'model_quantized.onnx'))).toBe(false);
    expect(existsSync(stagingOf())).toBe(false);
    expect(readManifest(folderOf())).toMatchObject({
      repo: REPO,
      revision: 'main',
      commit: hub.commitOf(REPO),
      endpoint: hub.hub.origin,
      variant: 'float32',
      files: expect.arrayContaining([
        { path: MODEL, bytes: MODEL_BYTES, sha256: hub.sha256Of(REPO, MODEL), sha256_from_hub: true },
      ]),
    });
    // The LFS files came through the CDN host, pinned to the commit the first answer named.
    expect(gets('cdn').map((hit) => hit.path)).toEqual(['/blobs/tokenizer.json', '/blobs/onnx--model.onnx']);
    expect(gets('hub').every((hit) => hit.path.includes(`/resolve/${hub.commitOf(REPO)}/`))).toBe(true);
  });

  it('pulls the int8 export with the quantized variant', async () => {
    await puller().pull(options({ variant: 'quantized' }));
    expect(readdirSync(path.join(folderOf(), 'onnx'))).toEqual(['model_quantized.onnx']);
    expect(readManifest(folderOf())?.variant).toBe('quantized');
  });

  it('downloads nothing the second time when the folder holds that commit already', async () => {
    await puller().pull(options());
    hub.hits.length = 0;
    expect(await puller().pull(options())).toMatchObject({ upToDate: true });
    expect(hub.hits.filter((hit) => hit.method === 'GET')).toEqual([]);
  });

  it('skips tokenizer_config.json when the repo has none, and refuses a repo without the model file', async () => {
    hub.missing.add('tokenizer_config.json');
    await puller().pull(options());
    expect(existsSync(path.join(folderOf(), 'tokenizer_config.json'))).toBe(false);
    rmSync(folderOf(), { recursive: true });
    hub.missing.add(MODEL);
    await expect(puller().pull(options())).rejects.toThrow(
      `the repo ${REPO} has no file ${MODEL} at revision main (404)`,
    );
    expect(existsSync(folderOf())).toBe(false);
  });

  it('names an unknown repo and an unknown revision', async () => {
    await expect(puller().pull(options({ repo: 'tiny-org/nope' }))).rejects.toThrow(
      /the repo tiny-org\/nope does not exist, or is private or gated \(401\)/,
    );
    await expect(puller().pull(options({ revision: 'v9' }))).rejects.toThrow(
      `the repo ${REPO} has no revision v9 (404)`,
    );
  });
  it('offline (nothing listens where the Hub should be), says what to do: a mirror in HF_ENDPOINT, --revision, or a copied model', async () => {
    const offline = `http://127.0.0.1:${await closedPort()}`;
    const pulled = puller().pull(options({ env: { HF_ENDPOINT: offline } }));
    await expect(pulled).rejects.toThrow(
      /^config.json of tiny-org\/tiny-reranker: could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\); if this machine cannot reach/,
    );
    await expect(pulled).rejects.toThrow('set HF_ENDPOINT to a mirror that has the repo');
    await expect(pulled).rejects.toThrow('add --revision REV');
    await expect(pulled).rejects.toThrow('system1 engine start reranker --model DIR');
    await expect(pulled).rejects.toThrow('engines/reranker/README.md#get-a-model');
  });
});

describe('resume', () => {
  it('keeps the .part of an interrupted transfer and resumes it with a Range from where it stopped', async () => {
    hub.truncate = { file: MODEL, afterBytes: MODEL_BYTES / 2, times: 1 };
    const failed = puller().pull(options());
    await expect(failed).rejects.toThrow(
      new RegExp(
        `the transfer of ${MODEL} of ${REPO} stopped after \\d+ of ${MODEL_BYTES} bytes .*run the same command again to resume it`,
      ),
    );
    expect(existsSync(folderOf())).toBe(false);
    const part = path.join(stagingOf(), 'onnx', 'model.onnx.part');
    // Every byte that arrived was kept.
    const kept = statSync(part).size;
    expect(kept).toBe(MODEL_BYTES / 2);

    hub.hits.length = 0;
    const lines: string[] = [];
    await puller().pull(options({ log: (line) => lines.push(line) }));
    expect(gets('cdn', MODEL)).toEqual([expect.objectContaining({ range: `bytes=${kept}-` })]);
    expect(readFileSync(path.join(folderOf(), MODEL))).toEqual(readFileSync(path.join(source, MODEL)));
    expect(lines).toContainEqual(expect.stringMatching(/onnx\/model\.onnx: .* resumed at .*sha256 matches the Hub/));
    // The files finished in the first run were kept, not fetched again.
    expect(gets('cdn', 'tokenizer.json')).toEqual([]);
  });

  it('starts a staging folder afresh when the repo moved to another commit meanwhile', async () => {
    hub.truncate = { file: MODEL, afterBytes: 1000, times: 1 };
    await expect(puller().pull(options())).rejects.toThrow(/stopped after/);
    writeFileSync(
      path.join(stagingOf(), '.staging.json'),
      JSON.stringify({ repo: REPO, commit: 'f'.repeat(40), variant: 'float32' }),
    );
    hub.hits.length = 0;
    await puller().pull(options());
    expect(gets('cdn', MODEL)).toEqual([expect.not.objectContaining({ range: expect.anything() })]);
  });
});

describe('checks', () => {
  it("deletes a file whose bytes do not match the Hub's sha256, and leaves no model folder", async () => {
    hub.wrongBytes.add(MODEL);
    await expect(puller().pull(options())).rejects.toThrow(
      new RegExp(
        `${MODEL} of ${REPO} does not match the sha256 the Hub gives for it \\(expected ${hub.sha256Of(REPO, MODEL)}, got [0-9a-f]{64}\\): deleted it`,
      ),
    );
    expect(existsSync(folderOf())).toBe(false);
    expect(existsSync(path.join(stagingOf(), MODEL))).toBe(false);
    expect(existsSync(path.join(stagingOf(), `${MODEL}.part`))).toBe(false);
  });

  it('a .part that is not a prefix of the file fails the check after the resume and is deleted', async () => {
    hub.truncate = { file: MODEL, afterBytes: 1000, times: 1 };
    await expect(puller().pull(options())).rejects.toThrow(/stopped after/);
    const part = path.join(stagingOf(), `${MODEL}.part`);
    expect(statSync(part).size).toBe(1000);
    writeFileSync(part, randomBytes(1000));
    await expect(puller().pull(options())).rejects.toThrow(/does not match the sha256 the Hub gives for it/);
    expect(existsSync(part)).toBe(false);
    expect(existsSync(folderOf())).toBe(false);
  });

  it('refuses a file over the cap before downloading anything', async () => {
    await expect(puller().pull(options({ maxFileBytes: MODEL_BYTES / 2 }))).rejects.toThrow(
      `${MODEL} of ${REPO} is 64 KiB, over the 32 KiB cap for one file: refused before downloading (raise --max-file-size to allow it)`,
    );
    expect(hub.hits.filter((hit) => hit.method === 'GET')).toEqual([]);
  });

  it('stops a file that grows past the cap while it arrives when the Hub did not give its size, and deletes it', async () => {
    hub.hideSize.add(MODEL);
    await expect(puller().pull(options({ maxFileBytes: MODEL_BYTES / 2 }))).rejects.toThrow(
      `${MODEL} of ${REPO} grew past the 32 KiB cap for one file while arriving: refused and deleted`,
    );
    expect(gets('cdn', MODEL)).toHaveLength(1);
    expect(existsSync(path.join(stagingOf(), `${MODEL}.part`))).toBe(false);
    expect(existsSync(folderOf())).toBe(false);
  });
});

describe('the token and redirects', () => {
  it("sends HF_TOKEN to the Hub's host for a gated repo and never to the CDN it redirects to", async () => {
    await puller().pull(options({ repo: GATED, env: { HF_ENDPOINT: hub.hub.href, HF_TOKEN: TOKEN } }));
    expect(readFileSync(path.join(folderOf(GATED), MODEL))).toEqual(readFileSync(path.join(source, MODEL)));
    expect(hub.hitsOf('hub').length).toBeGreaterThan(0);
    expect(hub.hitsOf('hub').every((hit) => hit.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(gets('cdn').length).toBe(2);
    expect(hub.hitsOf('cdn').map((hit) => hit.authorization)).toEqual(hub.hitsOf('cdn').map(() => undefined));
    expect(readFileSync(path.join(folderOf(GATED), MANIFEST_FILE), 'utf8')).not.toContain(TOKEN);
  });

  it('says a gated repo needs HF_TOKEN, and that a wrong one was refused, without printing it', async () => {
    await expect(puller().pull(options({ repo: GATED }))).rejects.toThrow(
      `config.json of ${GATED} needs a token (401: the repo is gated or private): set HF_TOKEN`,
    );
    const wrong = puller().pull(
      options({ repo: GATED, env: { HF_ENDPOINT: hub.hub.href, HF_TOKEN: 'hf_wrong_token_1234' } }),
    );
    await expect(wrong).rejects.toThrow(`the Hub refused HF_TOKEN for config.json of ${GATED} (401)`);
    await expect(wrong).rejects.not.toThrow(/hf_wrong_token_1234/);
  });

  it("keeps HF_TOKEN from a CDN on the Hub's own host name at another port: the token follows the origin, not the host name", async () => {
    const sameHost = await new HfHubFake({ cdnOnHubHost: true }).addRepo(GATED, source, { token: TOKEN }).start();
    try {
      expect([sameHost.cdn.hostname, sameHost.cdn.port]).toEqual([sameHost.hub.hostname, expect.any(String)]);
      expect(sameHost.cdn.port).not.toBe(sameHost.hub.port);
      await puller().pull(options({ repo: GATED, env: { HF_ENDPOINT: sameHost.hub.href, HF_TOKEN: TOKEN } }));
      expect(sameHost.hitsOf('hub').every((hit) => hit.authorization === `Bearer ${TOKEN}`)).toBe(true);
      expect(sameHost.hitsOf('cdn').filter((hit) => hit.method === 'GET')).toHaveLength(2);
      expect(sameHost.hitsOf('cdn').filter((hit) => hit.authorization !== undefined)).toEqual([]);
    } finally {
      await sameHost.stop();
    }
  });

  it('stops a redirect loop after a few hops', async () => {
    hub.cdnRedirect = 'loop';
    await expect(puller().pull(options())).rejects.toThrow(
      `tokenizer.json of ${REPO}: more than ${HubHttpClient.MAX_REDIRECTS} redirects starting at`,
    );
    expect(gets('cdn')).toHaveLength(HubHttpClient.MAX_REDIRECTS);
  });

  it('refuses a redirect to a scheme other than http(s)', async () => {
    hub.cdnRedirect = 'file:///etc/passwd';
    await expect(puller().pull(options())).rejects.toThrow(
      /a redirect from .* has the scheme file; only http and https are fetched/,
    );
    expect(existsSync(folderOf())).toBe(false);
  });
});

describe('the revision', () => {
  it.each(['..', '.'])(
    'refuses the revision %j by name before any request: nothing reaches the Hub, the token least of all',
    async (revision) => {
      const pulled = puller().pull(
        options({ repo: GATED, revision, env: { HF_ENDPOINT: hub.hub.href, HF_TOKEN: TOKEN } }),
      );
      await expect(pulled).rejects.toThrow(`${JSON.stringify(revision)} is not a revision`);
      expect(hub.hits).toEqual([]);
      expect(existsSync(stagingOf(GATED))).toBe(false);
    },
  );
});
