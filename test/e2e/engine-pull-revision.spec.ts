/**
 * `system1 engine pull reranker REPO --revision ..`, as a careless user (or a script handed a revision) runs it
 * against a fake Hugging Face Hub on loopback (test/fakes/hf-hub.fake.ts): a URL resolves `..` away, so
 * `<repo>/resolve/../config.json` would become `<repo>/config.json`, asked of the Hub with HF_TOKEN on it.
 *
 * npm is a stand-in on PATH that installs nothing but the two package folders the engine's check looks for:
 * the pull then reaches the Hub as it would after a real `npm ci`, with no npm cache or registry involved (the
 * full install is test/e2e/engine-pull.spec.ts's, which needs engines/reranker/node_modules).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Env, requireBuild, Resources, runCli } from './helpers/gateway';
import { HfHubFake } from '../fakes/hf-hub.fake';

const REPO = 'tiny-org/gated-reranker';
const TOKEN = 'hf_e2e_revision_token_51c9';

const resources = Resources.perFile();
const sandbox = resources.sandbox();
const hub = new HfHubFake();
const npmCalls = path.join(sandbox.dir, 'npm-calls');
const tools = path.join(sandbox.dir, 'bin');

function userEnv(extra: Env = {}): Env {
  const base = sandbox.env();
  return sandbox.env({
    PATH: `${tools}${path.delimiter}${base.PATH}`,
    // Should the stand-in be passed over, npm itself must not reach past loopback either.
    npm_config_offline: 'true',
    npm_config_registry: 'http://127.0.0.1:9/',
    HF_ENDPOINT: hub.hub.href,
    ...extra,
  });
}

const npmRuns = () => (existsSync(npmCalls) ? readFileSync(npmCalls, 'utf8').split('\n').filter(Boolean) : []);

beforeAll(async () => {
  requireBuild();
  const source = path.join(sandbox.dir, 'repo');
  mkdirSync(path.join(source, 'onnx'), { recursive: true });
  writeFileSync(path.join(source, 'config.json'), JSON.stringify({ model_type: 'bert' }));
  writeFileSync(path.join(source, 'tokenizer.json'), JSON.stringify({ model: { vocab: { a: 0 } } }));
  writeFileSync(path.join(source, 'onnx', 'model.onnx'), Buffer.alloc(4096, 7));
  await hub.addRepo(REPO, source, { token: TOKEN }).start();
  mkdirSync(tools);
  const npm = path.join(tools, 'npm');
  writeFileSync(
    npm,
    `#!/bin/sh\necho "npm $*" >> ${JSON.stringify(npmCalls)}\n` +
      'mkdir -p node_modules/onnxruntime-node node_modules/@huggingface/tokenizers\n',
  );
  chmodSync(npm, 0o755);
});
afterAll(() => hub.stop());
beforeEach(() => {
  hub.hits.length = 0;
});

describe.each(['..', '.'])('system1 engine pull reranker REPO --revision %s', (revision) => {
  it('is refused by name before npm runs or any request goes out: nothing outside /resolve/, no token sent', async () => {
    const refused = await runCli(
      ['engine', 'pull', 'reranker', REPO, '--revision', revision],
      userEnv({ HF_TOKEN: TOKEN }),
    );
    expect(refused.stderr).toBe(
      `system1 engine pull: ${JSON.stringify(revision)} is not a revision: a branch, tag or commit id ` +
        '("." and ".." are steps in a path, not names)\n',
    );
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(hub.hits.filter((hit) => !hit.path.includes('/resolve/'))).toEqual([]);
    expect(hub.hits.filter((hit) => hit.authorization !== undefined)).toEqual([]);
    expect(npmRuns()).toEqual([]);
  });
});

it('the same pull at main reaches the Hub under /resolve/ with the token (so the refusals above are not for want of a Hub)', async () => {
  const pulled = await runCli(['engine', 'pull', 'reranker', REPO, '--revision', 'main'], userEnv({ HF_TOKEN: TOKEN }));
  expect(pulled.stdout).toContain(`Pulled ${REPO} at commit ${hub.commitOf(REPO).slice(0, 12)}`);
  expect(pulled.code).toBe(0);
  expect(npmRuns()).toHaveLength(1);
  expect(hub.hitsOf('hub').length).toBeGreaterThan(0);
  expect(hub.hitsOf('hub').every((hit) => hit.path.startsWith(`/${REPO}/resolve/`))).toBe(true);
  expect(hub.hitsOf('hub').every((hit) => hit.authorization === `Bearer ${TOKEN}`)).toBe(true);
  expect(`${pulled.stdout}${pulled.stderr}`).not.toContain(TOKEN);
});
