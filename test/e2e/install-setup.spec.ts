/**
 * The first hour: install.sh as a new user runs it, in a throwaway HOME whose PATH has ~/.local/bin. It puts
 * a `system1` command on PATH that a new shell runs, chooses an engine this machine offers when the user has
 * not, and leaves a config whose `system1 smoke` passes. Every engine setup may probe is pointed at a fake or a
 * closed port on loopback (SYSTEM1_<NAME>_ENDPOINT, OLLAMA_HOST), so nothing depends on what runs on this
 * machine's default ports, and nothing is asked beyond loopback.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { OllamaFake } from '../fakes/ollama.fake';
import { OpenAiUpstreamFake } from '../fakes/openai-upstream.fake';
import { type CliResult, type Env, requireBuild, Resources, ROOT, runCommand, type Sandbox } from './helpers/gateway';
import { closedPort, noEngines } from './helpers/no-engines';
import { RouterProcess } from './helpers/router-process';

jest.setTimeout(180_000);
const resources = Resources.perFile();

/** A new user: a throwaway HOME, ~/.local/bin on PATH, npm's own cache (which HOME would move). */
function newUser(sandbox: Sandbox) {
  const localBin = path.join(sandbox.home, '.local', 'bin');
  mkdirSync(localBin, { recursive: true });
  const config = path.join(sandbox.xdg, 'system1', 'config.toml');
  const env = (extra: Env = {}): Env => ({
    ...sandbox.env(),
    PATH: `${localBin}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
    ...extra,
  });
  /**
   * A new shell of this user: ~/.local/bin, node's folder and the system's on PATH, and the sandbox's places
   * for the config and the install dir; nothing else (no engine variables).
   */
  const freshShell = (command: string) =>
    runCommand('sh', ['-c', command], {
      env: {
        HOME: sandbox.home,
        XDG_CONFIG_HOME: sandbox.xdg,
        SYSTEM1_INSTALL_DIR: sandbox.install,
        PATH: [localBin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
      },
      cwd: tmpdir(),
    });
  const provider = () => (parse(readFileSync(config, 'utf8')) as { gateway?: { provider?: string } }).gateway?.provider;
  return { localBin, config, installDir: sandbox.install, env, freshShell, provider };
}

function install(env: Env, args: string[] = []): Promise<CliResult> {
  return runCommand('sh', ['install.sh', ...args], { env, cwd: ROOT, timeoutMs: 170_000 });
}

beforeAll(requireBuild);

/** A structured-output request the fast path would take: one closed field (the bank transaction). */
const TRANSACTION = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'NETFLIX.COM 15.49 EUR' }],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'Transaction',
      strict: true,
      schema: {
        type: 'object',
        properties: { category: { type: 'string', enum: ['groceries', 'subscriptions'] } },
        required: ['category'],
        additionalProperties: false,
      },
    },
  },
};

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('with no engine on this machine', () => {
  const sandbox = resources.sandbox();
  const user = newUser(sandbox);
  const secret = 'sk-ant-api03-NEVER-PRINTED';
  let installed: CliResult;

  const pulled = path.join(
    user.installDir,
    'engines',
    'reranker',
    'models',
    'Alibaba-NLP',
    'gte-reranker-modernbert-base',
  );

  beforeAll(async () => {
    // a reranker model `system1 engine pull reranker` fetched, not started: setup names the command that starts it
    mkdirSync(pulled, { recursive: true });
    const manifest = {
      repo: 'Alibaba-NLP/gte-reranker-modernbert-base',
      revision: 'main',
      endpoint: 'https://huggingface.co',
      variant: 'float32',
      files: [],
      pulled_at: '2026-12-05T08:00:00.000Z',
    };
    writeFileSync(path.join(pulled, 'system1-pull.json'), `${JSON.stringify(manifest)}\n`);
    // A hosted key is set, its endpoint a closed https port on loopback: tried by presence, fails, and is never shown.
    const hostedNowhere = `https://127.0.0.1:${await closedPort()}`;
    installed = await install(
      user.env(
        await noEngines({
          ANTHROPIC_API_KEY: secret,
          SYSTEM1_ANTHROPIC_ENDPOINT: hostedNowhere,
          OPENAI_API_KEY: secret,
        }),
      ),
    );
  });

  it('sets provider = "mock", says how to get a real engine, and the smoke check it shows passes', () => {
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    expect(user.provider()).toBe('mock');
    expect(installed.stdout).toContain('nothing listens there');
    expect(installed.stdout).toMatch(
      /anthropic \(ANTHROPIC_API_KEY is set; billed, and requests leave this machine\): fails the smoke check at health/,
    );
    expect(installed.stdout).toContain('OPENAI_API_KEY is set, but no engine here reads it');
    expect(installed.stdout).toContain(
      `No engine answered, so ${user.config} now says provider = "mock" with placeholder = true`,
    );
    expect(installed.stdout).toContain(
      `A reranker model is pulled (${pulled}): \`system1 engine start reranker\` starts it`,
    );
    expect(installed.stdout).toMatch(
      /Checking it \(system1 smoke\):\n[\s\S]*PASS {2}health {4}ok; WARNING: the only engine is the mock, a stand-in that always picks the first option[\s\S]*system1 engine pull reranker[\s\S]*All layers pass\./,
    );
    expect(installed.stdout).not.toContain(secret);
  });

  it("keeps the rest of the config: the example, with the mock setup added, marked as the installer's", () => {
    const example = readFileSync(path.join(ROOT, 'config.example.toml'), 'utf8');
    expect(readFileSync(user.config, 'utf8')).toBe(
      example
        .replace('[gateway]\n', '[gateway]\nprovider = "mock"\n')
        .replace('[providers.mock]\n', '[providers.mock]\nplaceholder = true\n'),
    );
  });

  describe('serve-openai on the config setup wrote', () => {
    const upstream = new OpenAiUpstreamFake();
    let router: RouterProcess;

    beforeAll(async () => {
      upstream.answer = { category: 'subscriptions' };
      const upstreamUrl = await upstream.start();
      router = await RouterProcess.start(sandbox, ['--upstream', upstreamUrl], {});
    });

    afterAll(async () => {
      await router.stop();
      await upstream.stop();
    });

    it('says at start that the fast path is off, why, and how to choose an engine', () => {
      expect(router.stderr()).toContain('fast path OFF, every request goes to the upstream');
      expect(router.stderr()).toContain(
        "the fast path is off: the engine mock is the installer's stand-in (placeholder = true in [providers.mock]",
      );
      expect(router.stderr()).toContain('`system1 engine pull reranker` then `system1 engine start reranker`');
    });

    it("sends a structured-output request to the upstream, never the mock's made-up first option", async () => {
      const response = await post(`${router.baseUrl}/chat/completions`, TRANSACTION);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-system1-route')).toBe(
        'fast_off; detail="no fast engine: the config names the stand-in mock"',
      );
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      expect(JSON.parse(body.choices[0].message.content)).toEqual({ category: 'subscriptions' });
      expect(upstream.hits).toHaveLength(1);
    });

    it("refuses /v1/decisions with a 503 that says why and what to do, in the API's own error envelope", async () => {
      const response = await post(`${router.baseUrl}/decisions`, {
        model: 'system1',
        input: 'NETFLIX.COM 15.49 EUR',
        questions: [
          {
            type: 'choice',
            name: 'category',
            instructions: 'What was the money spent on?',
            choices: [{ value: 'groceries' }, { value: 'subscriptions' }],
          },
        ],
      });
      expect(response.status).toBe(503);
      const { error } = (await response.json()) as { error: { message: string; code: string } };
      expect(error.code).toBe('engine_unavailable');
      expect(error.message).toContain("the engine mock is the installer's stand-in");
      expect(error.message).toContain('to serve the mock on purpose, delete that placeholder line');
    });
  });

  it('serves the mock when the operator asks for it by name (placeholder = false)', async () => {
    const upstream = new OpenAiUpstreamFake();
    const upstreamUrl = await upstream.start();
    const router = await RouterProcess.start(sandbox, ['--upstream', upstreamUrl], {
      SYSTEM1_MOCK_PLACEHOLDER: 'false',
    });
    try {
      const response = await post(`${router.baseUrl}/chat/completions`, TRANSACTION);
      expect(response.headers.get('x-system1-route')).toBe('fast');
      expect(router.stderr()).not.toContain('fast path OFF');
      expect(upstream.hits).toHaveLength(0);
    } finally {
      await router.stop();
      await upstream.stop();
    }
  });

  it('puts system1 on PATH: a new shell runs `system1 --help` and `system1 smoke` from the config alone', async () => {
    expect(installed.stdout).toContain(
      `Added the system1 command: ${path.join(user.localBin, 'system1')} (its folder is on PATH).`,
    );
    const help = await user.freshShell('system1 --help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: system1');
    const smoke = await user.freshShell('system1 smoke');
    expect(smoke.stdout).toContain('All layers pass.');
    expect(smoke.code).toBe(0);
  });

  it('uninstall removes the command: a new shell no longer finds it', async () => {
    // a new user's shell: no claude on PATH (npx puts node_modules/.bin there for the tests)
    const bare = [user.localBin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
    const removed = await runCommand('sh', ['uninstall.sh'], { env: { ...user.env(), PATH: bare }, cwd: ROOT });
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(removed.stdout).toContain(
      'Could not unregister system1 from Claude Code: claude is not on PATH. If you registered it, run: claude mcp remove --scope user system1',
    );
    expect(removed.stdout).toContain(`Removed the system1 command ${path.join(user.localBin, 'system1')}.`);
    expect(existsSync(path.join(user.localBin, 'system1'))).toBe(false);
    expect((await user.freshShell('system1 --help')).code).toBe(127);
  });
});

describe('with Ollama running a model (a fake, found through OLLAMA_HOST)', () => {
  const ollama = new OllamaFake();
  const user = newUser(resources.sandbox());
  const foreign = '#!/bin/sh\necho "another program called system1"\n';
  let installed: CliResult;
  let endpoint: string;

  beforeAll(async () => {
    ollama.models = ['nomic-embed-text:latest', 'gemma4:e4b'];
    const url = await ollama.start();
    endpoint = url.origin;
    writeFileSync(path.join(user.localBin, 'system1'), foreign, { mode: 0o755 });
    const { SYSTEM1_OLLAMA_ENDPOINT: _unset, ...env } = await noEngines({ OLLAMA_HOST: url.host });
    installed = await install(user.env(env));
  });
  afterAll(() => ollama.stop());

  it('writes provider = "ollama" with the model and where it listens, after a trial decision, and the smoke check passes', () => {
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    expect(installed.stdout).toContain(`Ollama at ${endpoint}: passes the smoke check`);
    expect(installed.stdout).toContain(`Set provider = "ollama" in ${user.config}: Ollama at ${endpoint}.`);
    expect(installed.stdout).toMatch(/PASS {2}health {4}ok; ollama \(primary\) up[\s\S]*All layers pass\./);
    const config = parse(readFileSync(user.config, 'utf8')) as {
      gateway: { provider: string };
      providers: { ollama: Record<string, string> };
    };
    expect(config.gateway.provider).toBe('ollama');
    expect(config.providers.ollama).toEqual({ model: 'gemma4:e4b', endpoint });
    expect(ollama.requestsTo('/api/chat').length).toBeGreaterThanOrEqual(1);
  });

  it('the config alone reaches the engine: a new shell without OLLAMA_HOST passes the smoke check', async () => {
    const smoke = await user.freshShell(`node '${path.join(user.installDir, 'app', 'dist', 'main.js')}' smoke`);
    expect(smoke.stdout).toContain('ollama (primary) up');
    expect(smoke.code).toBe(0);
  });

  it("leaves another program's system1 alone, and says so", () => {
    const file = path.join(user.localBin, 'system1');
    expect(installed.stdout).toContain(`Left ${file} as it is: it is not the gateway's`);
    expect(readFileSync(file, 'utf8')).toBe(foreign);
  });
});

describe("with the user's own choice in the config", () => {
  const ollama = new OllamaFake();
  const user = newUser(resources.sandbox());
  const mine = '# mine\n[gateway]\nprovider = "mock"\n\n[providers.mock]\nconfidence = 0.7\n';

  it('keeps it, probes nothing, says so, and shows the smoke check of that choice', async () => {
    await ollama.start();
    try {
      mkdirSync(path.dirname(user.config), { recursive: true });
      writeFileSync(user.config, mine);
      const installed = await install(user.env(await noEngines({ SYSTEM1_OLLAMA_ENDPOINT: ollama.url.origin })));
      expect(installed).toMatchObject({ code: 0, stderr: '' });
      expect(installed.stdout).toContain('Kept the engine: your config chooses provider = "mock".');
      expect(installed.stdout).toContain('All layers pass.');
      expect(readFileSync(user.config, 'utf8')).toBe(mine);
      expect(ollama.requests).toEqual([]);
    } finally {
      await ollama.stop();
    }
  });
});
