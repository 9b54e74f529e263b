/**
 * A real local engine in two commands, as a user gets it: the installer (node scripts/install.js) into a
 * throwaway HOME and install dir, then the installed `system1 engine pull reranker` against a fake Hugging Face
 * Hub on loopback (test/fakes/hf-hub.fake.ts, its CDN on another loopback host) serving the reranker's tiny
 * test cross-encoder, `engine start reranker`, `system1 smoke` decided by the reranker, and `engine stop`.
 * Then the faults a download meets: an interrupted transfer resumed by the next run, and bytes that do not
 * match the Hub's sha256.
 *
 * npm runs offline (npm_config_offline) from the cache `cd engines/reranker && npm ci` filled, so nothing
 * leaves loopback; without engines/reranker/node_modules the suite is skipped, loudly.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { type CliResult, type Env, requireBuild, Resources, ROOT, runCommand } from './helpers/gateway';
import { noEngines } from './helpers/no-engines';
import { describeUnless } from '../helpers/skip-unless';
import { HfHubFake } from '../fakes/hf-hub.fake';
import { ProcessTable } from '../../src/local-engines/process/process-table';
import { chooseVariant, thisCpu } from '../../src/local-engines/reranker/model-variant-choice';
import { setConfigValues } from '../../src/config/config-edit';

const ENGINE = path.join(ROOT, 'engines', 'reranker');
const installed = existsSync(path.join(ENGINE, 'node_modules', 'onnxruntime-node'));
if (!installed) {
  console.warn(
    `\n*** SKIPPING test/e2e/engine-pull.spec.ts: ${path.join(ENGINE, 'node_modules')} is missing, so npm's cache may lack the ` +
      `engine's packages. Run: cd engines/reranker && npm ci (.ci/run does) ***\n`,
  );
}
const describeInstalled = describeUnless(
  installed ? undefined : 'engines/reranker/node_modules is missing: cd engines/reranker && npm ci (.ci/run does)',
);

jest.setTimeout(300_000);

const REPO = 'tiny-org/tiny-reranker';
const MODEL = 'onnx/model.onnx';
/** The gated repo's token: it must reach the Hub, and never the CDN, the output or a file. */
const TOKEN = 'hf_e2e_9c41d7a0token';

describeInstalled('system1 engine pull|start|stop reranker, installed as a user installs it', () => {
  const resources = Resources.perFile();
  const sandbox = resources.sandbox();
  const hub = new HfHubFake();
  const app = path.join(sandbox.install, 'app');
  const home = path.join(sandbox.install, 'engines', 'reranker');
  const models = path.join(home, 'models');
  const config = path.join(sandbox.xdg, 'system1', 'config.toml');
  let source: string;

  /** The user's environment: npm offline from its own cache (which HOME would move), the Hub at the fake. */
  function userEnv(extra: Env = {}): Env {
    return sandbox.env({
      npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
      npm_config_offline: 'true',
      HF_ENDPOINT: hub.hub.href,
      ...extra,
    });
  }

  /** The installed `system1`. */
  function system1(args: string[], extra: Env = {}): Promise<CliResult> {
    return runCommand(process.execPath, [path.join(app, 'dist', 'main.js'), ...args], {
      env: userEnv(extra),
      timeoutMs: 240_000,
    });
  }

  const sameBytes = (folder: string, file: string) =>
    readFileSync(path.join(folder, file)).equals(readFileSync(path.join(source, file)));

  beforeAll(async () => {
    requireBuild();
    source = path.join(mkdtempSync(path.join(tmpdir(), 'system1-tiny-hub-')), 'tiny');
    const made = await runCommand(
      process.execPath,
      [path.join(ENGINE, 'test-support', 'tiny-model.js'), source, '--hub-layout'],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect(made).toMatchObject({ code: 0, stderr: '' });
    await hub
      .addRepo(REPO, source, { token: TOKEN })
      .addRepo('tiny-org/interrupted', source)
      .addRepo('tiny-org/tampered', source)
      .start();
    // setup finds no engine (each it looks for is pointed at a closed port) and leaves the mock
    const install = await runCommand(process.execPath, [path.join(ROOT, 'scripts', 'install.js')], {
      env: userEnv(await noEngines()),
      cwd: ROOT,
      timeoutMs: 240_000,
    });
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
  });

  afterAll(async () => {
    // A failed test may leave the engine running: stop it by the pid it recorded, if that is still the engine.
    try {
      const { pid } = JSON.parse(readFileSync(path.join(home, 'reranker.pid'), 'utf8')) as { pid: number };
      if (new ProcessTable().commandLine(pid)?.includes(path.join(home, 'serve.js'))) process.kill(pid);
    } catch {
      // no pid file: not running
    }
    await hub.stop();
    rmSync(path.dirname(source), { recursive: true, force: true });
  });

  it("the installed copy carries the engine's files, and nothing of the engine is installed or downloaded yet", () => {
    for (const file of ['start.js', 'serve.js', 'package-lock.json', '.npmrc', path.join('lib', 'model-folder.js')])
      expect(existsSync(path.join(app, 'engines', 'reranker', file))).toBe(true);
    for (const absent of ['node_modules', 'test', 'model', 'results'])
      expect(existsSync(path.join(app, 'engines', 'reranker', absent))).toBe(false);
    expect(existsSync(home)).toBe(false);
    expect(hub.hits).toEqual([]);
  });

  it('start before any pull says to run pull', async () => {
    const early = await system1(['engine', 'start', 'reranker']);
    expect(early).toMatchObject({ code: 1, stdout: '' });
    expect(early.stderr).toBe(
      `system1 engine start: the reranker is not installed in ${home}: run "system1 engine pull reranker" first (it installs the engine's packages and a model)\n`,
    );
  });

  it("pull refuses the gated repo without HF_TOKEN, naming the variable, after installing the engine's packages", async () => {
    const refused = await system1(['engine', 'pull', 'reranker', REPO]);
    expect(refused.stderr).toContain(
      `system1 engine pull: config.json of ${REPO} needs a token (401: the repo is gated or private): set HF_TOKEN`,
    );
    expect(refused.code).toBe(1);
    expect(existsSync(path.join(home, 'node_modules', 'onnxruntime-node'))).toBe(true);
    expect(existsSync(path.join(models, ...REPO.split('/')))).toBe(false);
  });

  it('pull downloads the model with HF_TOKEN, which reaches the Hub and never its CDN', async () => {
    hub.hits.length = 0;
    const pulled = await system1(['engine', 'pull', 'reranker', REPO], { HF_TOKEN: TOKEN });
    expect(pulled.stderr).not.toMatch(/npm ci/); // the packages were installed by the first run
    expect(pulled.code).toBe(0);
    const folder = path.join(models, ...REPO.split('/'));
    expect(pulled.stdout).toContain(
      `Pulled ${REPO} at commit ${hub.commitOf(REPO).slice(0, 12)} into ${folder} (4 files`,
    );
    for (const file of ['config.json', 'tokenizer_config.json', 'tokenizer.json', MODEL])
      expect(sameBytes(folder, file)).toBe(true);
    expect(hub.hitsOf('hub').every((hit) => hit.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(
      hub
        .hitsOf('cdn')
        .filter((hit) => hit.method === 'GET')
        .map((hit) => hit.path),
    ).toEqual(['/blobs/tokenizer.json', '/blobs/onnx--model.onnx']);
    expect(hub.hitsOf('cdn').filter((hit) => hit.authorization !== undefined)).toEqual([]);
    expect(`${pulled.stdout}${pulled.stderr}`).not.toContain(TOKEN);
    expect(readFileSync(path.join(folder, 'system1-pull.json'), 'utf8')).not.toContain(TOKEN);
    // The file chosen by this machine's CPU, said with why; the tiny repo has no int8 export, so a CPU that
    // chose int8 gets float32 instead, said so.
    const choice = chooseVariant({}, thisCpu());
    expect(pulled.stdout).toContain(
      `Model file: ${choice.variant === 'quantized' ? 'onnx/model_quantized.onnx, int8' : 'onnx/model.onnx, float32'} (${choice.why}).`,
    );
    if (choice.variant === 'quantized')
      expect(pulled.stdout).toContain(
        `${REPO} has no int8 export (onnx/model_quantized.onnx): pulling float32 instead.`,
      );
    // The installed engine timed itself on the pulled model: what a decision takes, then how to start it.
    expect(pulled.stdout).toMatch(
      /^On this machine a decision of 5 candidates takes ~[\d.,]+ ms, 20 ~[\d.,]+ ms, 90 ~[\d.,]+ ms \(the engine timed itself on this model: predictions from a measured cost per candidate: .*\)\.\nStart it with: system1 engine start reranker\n$/m,
    );
    expect(pulled.stderr).not.toMatch(/self-timing failed/);
  });

  it('start refuses a shortlist of one option before starting anything, naming the option', async () => {
    const refused = await system1(['engine', 'start', 'reranker', '--shortlist', '1']);
    expect(refused.stderr).toContain(
      "option '--shortlist <k>' argument '1' is invalid. must be a whole number from 2 to 256",
    );
    expect(refused.code).not.toBe(0);
    expect(existsSync(path.join(home, 'reranker.pid'))).toBe(false);
  });

  it('pull refuses --quantized with --float32 before doing anything', async () => {
    hub.hits.length = 0;
    const refused = await system1(['engine', 'pull', 'reranker', REPO, '--quantized', '--float32']);
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'system1 engine pull: --quantized and --float32 ask for opposite files: pass one of them\n',
    });
    expect(hub.hits).toEqual([]);
  });

  it('pull --float32 of a model already there downloads nothing, and times it again', async () => {
    const again = await system1(['engine', 'pull', 'reranker', REPO, '--float32'], { HF_TOKEN: TOKEN });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Model file: onnx/model.onnx, float32 (float32, as --float32 asks).');
    expect(again.stdout).toContain('nothing to download.');
    expect(again.stdout).toContain('On this machine a decision of 5 candidates takes ~');
  });

  let endpoint: string;

  it('start serves the pulled model, saying which, and points the config (the mock, as setup left it) at it', async () => {
    expect(parse(readFileSync(config, 'utf8'))).toHaveProperty('gateway.provider', 'mock');
    // A timeout below what even the tiny model's decision is given (1 s at least), so start must raise it.
    setConfigValues(config, [{ table: 'gateway', key: 'timeout_s', value: 0.5 }]);
    // HF_TOKEN set, as in a shell that pulled a gated repo: the engine it starts must not inherit it.
    // The engine's own settings go through the launcher to the server as given.
    const started = await system1(
      ['engine', 'start', 'reranker', '--port', '0', '--shortlist', '3', '--max-candidate-tokens', '200'],
      { HF_TOKEN: TOKEN },
    );
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const { pid } = JSON.parse(readFileSync(path.join(home, 'reranker.pid'), 'utf8')) as { pid: number };
    if (existsSync(`/proc/${pid}/environ`)) expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(TOKEN);
    expect(started.stdout).toContain(
      `Model: ${path.join(models, ...REPO.split('/'))} (the most recently pulled: ${REPO} at ${hub.commitOf(REPO).slice(0, 12)}, float32`,
    );
    endpoint = /The reranker serves on (http:\/\/127\.0\.0\.1:\d+) \(pid \d+\)/.exec(started.stdout)?.[1] ?? '';
    expect(endpoint).not.toBe('');
    const health = (await (await fetch(`${endpoint}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ max_candidate_tokens: 200, shortlist: { top_k: 3 } });
    expect(started.stdout).toContain(
      `The config ${config} used the provider "mock": set [gateway] provider = "systemone"`,
    );
    expect(parse(readFileSync(config, 'utf8'))).toMatchObject({
      gateway: { provider: 'systemone' },
      providers: { systemone: { endpoint } },
    });
    expect(readFileSync(config, 'utf8')).toContain('# provider = "laya"'); // the example's comments kept
    // What a decision costs by the engine's self-timing, and the timeout raised to cover one, saying why.
    expect(started.stdout).toContain('On this machine a decision of 5 candidates takes ~');
    const timeoutLine = started.stdout.split('\n').find((line) => line.startsWith('Set [gateway] timeout_s'));
    expect(timeoutLine).toMatch(
      /^Set \[gateway\] timeout_s = 1 in .* \(it was 0\.5 s\): a decision of 20 candidates is predicted at ~[\d.,]+ ms; 2x that, rounded up, is 1 s\.$/,
    );
    expect(timeoutLine).toContain(config);
    expect(parse(readFileSync(config, 'utf8'))).toHaveProperty('gateway.timeout_s', 1);
  });

  it('smoke passes every layer, the decision made by the reranker', async () => {
    const smoke = await system1([
      'smoke',
      '--question',
      'Which team should handle a refund?',
      '--options',
      'refunds',
      'later',
    ]);
    for (const layer of ['start', 'handshake', 'tools', 'health', 'decision'])
      expect(smoke.stdout).toMatch(new RegExp(`^PASS\\s+${layer}\\b`, 'm'));
    expect(smoke.stdout).not.toMatch(/^FAIL/m);
    // The tiny model scores "refund" and "##s" high beside a query and "later" low (engines/reranker/test-support/tiny-model.js).
    expect(smoke.stdout).toContain('"decision": "refunds"');
    expect(smoke.stdout).toContain('"provider": "systemone"');
    expect(smoke.stdout).toMatch(/"rationale": "systemone tiny-reranker: refunds=/);
    expect(smoke.stdout).toMatch(/^PASS\s+decision\s+decided "refunds" .*, in \d+ ms$/m);
    expect(smoke.code).toBe(0);
  });

  it('stop stops that server, and a second stop says nothing runs', async () => {
    const pid = (JSON.parse(readFileSync(path.join(home, 'reranker.pid'), 'utf8')) as { pid: number }).pid;
    const stopped = await system1(['engine', 'stop', 'reranker']);
    expect(stopped).toMatchObject({ code: 0, stdout: `Stopped the reranker (pid ${pid}).\n`, stderr: '' });
    await expect(fetch(`${endpoint}/health`)).rejects.toThrow();
    const again = await system1(['engine', 'stop', 'reranker']);
    expect(again.stdout).toMatch(/^The reranker is not running: no server started by "system1 engine start reranker"/);
    expect(again.code).toBe(0);
  });

  it('an interrupted pull fails and keeps its .part; the rerun resumes it with a Range and completes', async () => {
    const repo = 'tiny-org/interrupted';
    const size = statSync(path.join(source, MODEL)).size;
    hub.truncate = { file: MODEL, afterBytes: Math.floor(size / 2), times: 1 };
    const failed = await system1(['engine', 'pull', 'reranker', repo]);
    expect(failed.stderr).toMatch(
      new RegExp(
        `system1 engine pull: the transfer of ${MODEL} of ${repo} stopped after \\d+ of ${size} bytes .*run the same command again to resume it`,
      ),
    );
    expect(failed.code).toBe(1);
    const folder = path.join(models, ...repo.split('/'));
    expect(existsSync(folder)).toBe(false);
    const kept = statSync(path.join(`${folder}.partial`, `${MODEL}.part`)).size;
    expect(kept).toBeGreaterThan(0);

    hub.hits.length = 0;
    const resumed = await system1(['engine', 'pull', 'reranker', repo]);
    expect(resumed.code).toBe(0);
    expect(hub.hitsOf('cdn', MODEL).filter((hit) => hit.method === 'GET')).toEqual([
      expect.objectContaining({ range: `bytes=${kept}-` }),
    ]);
    expect(resumed.stderr).toMatch(/onnx\/model\.onnx: .*, resumed at .*, sha256 matches the Hub/);
    expect(sameBytes(folder, MODEL)).toBe(true);
    expect(existsSync(`${folder}.partial`)).toBe(false);
  });

  it("a model file whose bytes do not match the Hub's sha256 is refused and leaves no model folder behind", async () => {
    const repo = 'tiny-org/tampered';
    hub.wrongBytes.add(MODEL);
    try {
      const refused = await system1(['engine', 'pull', 'reranker', repo]);
      expect(refused.stderr).toMatch(
        new RegExp(
          `system1 engine pull: ${MODEL} of ${repo} does not match the sha256 the Hub gives for it .*: deleted it`,
        ),
      );
      expect(refused.code).toBe(1);
    } finally {
      hub.wrongBytes.clear();
    }
    const folder = path.join(models, ...repo.split('/'));
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(path.join(`${folder}.partial`, 'onnx'))).toEqual([]);
  });
});
