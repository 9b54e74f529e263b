/**
 * The plugin as a user installs it from a local clone, with the pinned Claude Code CLI (bench/client-tools.js
 * finds it) in a throwaway HOME: `claude plugin validate`, `claude plugin marketplace add <clone>` and `claude
 * plugin install system1@system1-gateway`, which must copy only plugin/ (this checkout, node_modules and all,
 * is the clone), then the plugin's own setup script from Claude Code's copy, which finds the clone and installs
 * from it. Offline: Claude Code's updater and other traffic are off, and every process here gets a recording
 * proxy on loopback, which must see no request at all.
 */
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
  cpSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { locate } from '../../bench/client-tools';
import { OllamaFake } from '../fakes/ollama.fake';
import { type CliResult, type Env, requireBuild, Resources, ROOT, runCommand } from './helpers/gateway';

jest.setTimeout(300_000);
const tools = locate();
const resources = Resources.perFile();
const sandbox = resources.sandbox();
const MARKETPLACE = JSON.parse(readFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8')) as {
  name: string;
  plugins: { name: string }[];
};
const PLUGIN_ID = `${MARKETPLACE.plugins[0].name}@${MARKETPLACE.name}`;
const MAX_PLUGIN_BYTES = 20 * 1024 * 1024;

/** Everything that tries to leave the machine through the proxy variables (CONNECT host:port, or a URL). */
const attempts: string[] = [];
let proxy: Server;
let proxyUrl: string;

/** Bytes on disk under `dir` (allocated blocks, as du counts them), links not followed. */
function diskUsage(dir: string): number {
  let total = lstatSync(dir).blocks * 512;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? diskUsage(full) : lstatSync(full).blocks * 512;
  }
  return total;
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The user's environment: the sandbox, `claude` on PATH, no update checks or telemetry, the recording proxy. */
function userEnv(extra: Env = {}): Env {
  const base = sandbox.env();
  return {
    ...base,
    PATH: `${path.dirname(tools.claude!)}${path.delimiter}${base.PATH}`,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
    npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
    ...extra,
  };
}

function claude(args: string[], env: Env = userEnv()): Promise<CliResult> {
  return runCommand(tools.claude!, args, { env, cwd: sandbox.dir, timeoutMs: 120_000 });
}

let installPath: string;

beforeAll(async () => {
  requireBuild();
  // a devDependency: missing means `npm ci` did not run whole, which is a failure, not a reason to skip
  expect(tools.claude).toEqual(expect.any(String));
  proxy = createServer((req, res) => {
    attempts.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, socket) => {
    attempts.push(`CONNECT ${req.url}`);
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

it('claude plugin validate passes for the marketplace, the plugin folder and its manifest, and reads the source field', async () => {
  for (const target of [ROOT, path.join(ROOT, 'plugin'), path.join(ROOT, 'plugin', '.claude-plugin', 'plugin.json')]) {
    const validated = await claude(['plugin', 'validate', target]);
    expect({ target, code: validated.code, passed: validated.stdout.includes('Validation passed') }).toEqual({
      target,
      code: 0,
      passed: true,
    });
  }
  // the same marketplace with a source Claude Code refuses: validate is really reading ours
  const broken = mkdtempSync(path.join(tmpdir(), 'system1-marketplace-'));
  try {
    mkdirSync(path.join(broken, '.claude-plugin'));
    const manifest = readFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8').replace(
      '"./plugin"',
      '"../plugin"',
    );
    writeFileSync(path.join(broken, '.claude-plugin', 'marketplace.json'), manifest);
    cpSync(path.join(ROOT, 'plugin'), path.join(broken, 'plugin'), { recursive: true });
    expect((await claude(['plugin', 'validate', broken])).code).not.toBe(0);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
});

it('installing from the clone copies only the plugin: under 20 MB on disk, with its commands, hooks, skills and setup script', async () => {
  // the clone is this checkout, with what made the old layout copy 630 MB
  expect(existsSync(path.join(ROOT, 'node_modules', 'typescript'))).toBe(true);
  const added = await claude(['plugin', 'marketplace', 'add', ROOT]);
  expect(added.code).toBe(0);
  const installed = await claude(['plugin', 'install', PLUGIN_ID]);
  expect(installed).toMatchObject({ code: 0 });

  const plugins = path.join(sandbox.home, '.claude', 'plugins');
  const bytes = diskUsage(plugins);
  expect({ bytes, under: bytes < MAX_PLUGIN_BYTES }).toEqual({ bytes, under: true });

  const listed = JSON.parse((await claude(['plugin', 'list', '--json'])).stdout) as {
    id: string;
    installPath?: string;
  }[];
  installPath = listed.find((plugin) => plugin.id === PLUGIN_ID)!.installPath!;
  expect(installPath.startsWith(plugins)).toBe(true);
  const files = readdirSync(installPath, { recursive: true }).map(String).sort();
  expect(files).toEqual(
    expect.arrayContaining([
      'commands/setup.md',
      'commands/choose-model.md',
      'hooks/hooks.json',
      'hooks/run.sh',
      'skills/using-system1/SKILL.md',
      'scripts/setup.js',
      '.claude-plugin/plugin.json',
    ]),
  );
  expect(files.filter((file) => /^(node_modules|src|dist|test)(\/|$)|^package\.json$/.test(file))).toEqual([]);
});

it('every ${CLAUDE_PLUGIN_ROOT} path the installed commands and hooks name is in the installed plugin', () => {
  const texts = [
    'hooks/hooks.json',
    ...readdirSync(path.join(installPath, 'commands')).map((name) => `commands/${name}`),
  ].map((file) => readFileSync(path.join(installPath, file), 'utf8'));
  const named = [
    ...new Set(
      texts.flatMap((text) => [...text.matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([\w./-]+)/g)].map((match) => match[1])),
    ),
  ].sort();
  expect(named).toEqual(expect.arrayContaining(['hooks/run.sh', 'scripts/setup.js']));
  expect(named.filter((file) => !existsSync(path.join(installPath, file)))).toEqual([]);
});

describe("the plugin's setup script, run from Claude Code's copy", () => {
  const config = path.join(sandbox.xdg, 'system1', 'config.toml');
  const setup = (env: Env) =>
    runCommand(process.execPath, [path.join(installPath, 'scripts', 'setup.js'), 'install'], {
      env,
      cwd: sandbox.dir,
      timeoutMs: 280_000,
    });
  const provider = () => (parse(readFileSync(config, 'utf8')) as { gateway: { provider: string } }).gateway.provider;

  it('finds the clone through the marketplace and installs from it; with no engine, mock, and the smoke check passes', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const done = await setup(
      userEnv({ SYSTEM1_SYSTEMONE_ENDPOINT: closed, SYSTEM1_LAYA_ENDPOINT: closed, SYSTEM1_OLLAMA_ENDPOINT: closed }),
    );
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toContain(`System-1 gateway sources: ${ROOT}`);
    expect(provider()).toBe('mock');
    expect(done.stdout).toContain(
      'For a real one: `system1 engine pull reranker` then `system1 engine start reranker`, or install Ollama',
    );
    expect(done.stdout).toMatch(/Checking it \(system1 smoke\):[\s\S]*All layers pass\./);
    expect(existsSync(path.join(sandbox.install, 'app', 'dist', 'main.js'))).toBe(true);
  });

  it('with Ollama running a model (a fake), writes ollama, and the smoke check passes against it', async () => {
    const ollama = new OllamaFake();
    const url = await ollama.start();
    try {
      rmSync(config); // a user who has not chosen yet
      const closed = `http://127.0.0.1:${await closedPort()}`;
      const done = await setup(
        userEnv({
          SYSTEM1_SYSTEMONE_ENDPOINT: closed,
          SYSTEM1_LAYA_ENDPOINT: closed,
          SYSTEM1_OLLAMA_ENDPOINT: url.origin,
        }),
      );
      expect(done).toMatchObject({ code: 0, stderr: '' });
      expect(provider()).toBe('ollama');
      expect(done.stdout).toMatch(/PASS {2}health {4}ok; ollama \(primary\) up[\s\S]*All layers pass\./);
      expect(ollama.requestsTo('/api/tags').length).toBeGreaterThanOrEqual(1);
    } finally {
      await ollama.stop();
    }
  });

  it('names the sources for /system1:choose-model, and uninstalls through the same clone', async () => {
    const script = path.join(installPath, 'scripts', 'setup.js');
    expect(await runCommand(process.execPath, [script, 'source'], { env: userEnv(), cwd: sandbox.dir })).toMatchObject({
      code: 0,
      stdout: `${ROOT}\n`,
    });
    const removed = await runCommand(process.execPath, [script, 'uninstall'], { env: userEnv(), cwd: sandbox.dir });
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(removed.stdout).toContain(`Removed ${path.join(sandbox.install, 'app')}.`);
    expect(existsSync(path.join(sandbox.install, 'app'))).toBe(false);
    expect(existsSync(config)).toBe(true);
  });
});

it('nothing in all of this tried to leave the machine', () => {
  expect(attempts).toEqual([]);
});
