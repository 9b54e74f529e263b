/**
 * Configs a tester would try to break the server with, over the real stdio channel: a FIFO or /dev/zero
 * named by SYSTEM1_CONFIG (or as the user's calibration.json), and provider names, sections and keys that
 * are Object.prototype members. Each one is a reported config problem; the server answers and keeps answering.
 *
 * A regression here blocks the server's only thread, so no wait is open-ended: the client gives up on
 * `initialize` after STARTUP_GUARD_MS (and closing it kills the child), and the CLI children run under
 * runCli's kill timer. The tests assert on what came back, never on how long it took.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fifoIt, makeFifo } from '../helpers/fifo';
import { type Env, type Json, MAIN, requireBuild, ROOT, runCli, runCommand, Sandbox } from './helpers/gateway';
import { itUnless } from '../helpers/skip-unless';

beforeAll(requireBuild);

const STARTUP_GUARD_MS = 20_000;
const CLI_GUARD_MS = 20_000;
const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const MOCK = '[gateway]\nprovider = "mock"\n';

const sandboxes: Sandbox[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const sandbox of sandboxes.splice(0)) sandbox.dispose();
});

function sandbox(): Sandbox {
  const made = new Sandbox();
  sandboxes.push(made);
  return made;
}

/** Starts `mcp` and completes `initialize`, or fails the test (with the server's stderr) instead of waiting on. */
async function start(
  where: Sandbox,
  env: Env,
): Promise<{ call: (name: string, args?: Json) => Promise<Json>; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: where.env(env),
    stderr: 'pipe',
    cwd: where.dir,
  });
  const chunks: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const client = new Client({ name: 'system1-e2e', version: '0.0.0' });
  clients.push(client);
  try {
    await client.connect(transport, { timeout: STARTUP_GUARD_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`the server did not answer initialize: ${String(error)}\nstderr:\n${chunks.join('')}`);
  }
  const call = async (name: string, args: Json = {}) => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: STARTUP_GUARD_MS })) as {
      structuredContent?: Json;
    };
    return result.structuredContent ?? {};
  };
  return { call, stderr: () => chunks.join('') };
}

/** Health is down with the problem on `key`, decide answers config_error with it, and the server still answers. */
async function expectConfigProblem(
  server: Awaited<ReturnType<typeof start>>,
  key: string,
  words: string[],
): Promise<void> {
  const health = await server.call('system1_health');
  expect(health.status).toBe('down');
  const reported = (health.config_errors as Json[]).find((error) => error.key === key);
  expect(reported).toBeDefined();
  for (const word of words) expect(reported!.message).toContain(word);

  const decide = await server.call('system1_decide', { ...ASK, request_id: 'hostile-1' });
  expect(decide).toMatchObject({
    request_id: 'hostile-1',
    status: 'error',
    error: { code: 'config_error', message: expect.stringContaining(reported!.message) },
  });
  expect((await server.call('system1_health')).status).toBe('down');
}

describe('SYSTEM1_CONFIG naming a special file', () => {
  fifoIt('a FIFO: initialize is answered, and the FIFO is a config problem naming the file', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.dir, 'config.toml');
    const server = await start(where, { SYSTEM1_CONFIG: fifo });
    await expectConfigProblem(server, '(file)', [fifo, 'a FIFO, not a regular file']);
  });

  const devZeroIt = itUnless(existsSync('/dev/zero') ? undefined : 'this system has no /dev/zero');
  devZeroIt('/dev/zero: initialize is answered, and the device is a config problem naming the file', async () => {
    const server = await start(sandbox(), { SYSTEM1_CONFIG: '/dev/zero' });
    await expectConfigProblem(server, '(file)', ['/dev/zero', 'a character device, not a regular file']);
  });

  fifoIt('a FIFO does not hold up the route hook: it exits 0 with no hint', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.dir, 'config.toml');
    const result = await runCli(['route-hook'], where.env({ SYSTEM1_CONFIG: fifo }), CLI_GUARD_MS, {
      session_id: 's-1',
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'p-1',
      cwd: where.dir,
      prompt: 'Design the architecture for the new billing service',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('pass model');
  });
});

describe('names that are Object.prototype members', () => {
  it.each([
    [
      'provider = "constructor"',
      '[gateway]\nprovider = "constructor"\n',
      {},
      'gateway.provider',
      ['unknown provider "constructor"'],
    ],
    [
      'fallback = ["__proto__"]',
      `${MOCK}fallback = ["__proto__"]\n`,
      {},
      'gateway.fallback',
      ['unknown provider "__proto__"'],
    ],
    [
      'SYSTEM1_FALLBACK=hasOwnProperty',
      MOCK,
      { SYSTEM1_FALLBACK: 'hasOwnProperty' },
      'SYSTEM1_FALLBACK',
      ['unknown provider "hasOwnProperty"'],
    ],
    [
      'a [providers.constructor] table',
      `${MOCK}[providers.constructor]\nconfidence = 0.5\n`,
      {},
      'providers.constructor',
      ['unknown provider "constructor"'],
    ],
    [
      'a [providers.__proto__] table',
      `${MOCK}[providers.__proto__]\nconfidence = 0.5\n`,
      {},
      'providers.__proto__',
      ['unknown provider "__proto__"'],
    ],
    [
      '[providers.mock] constructor = 5',
      `${MOCK}[providers.mock]\nconstructor = 5\n`,
      {},
      'providers.mock.constructor',
      ['is not a setting of provider mock'],
    ],
    ['a [constructor] section', `${MOCK}[constructor]\nx = 1\n`, {}, 'constructor', ['is not a known section']],
    [
      'a [gateway.valueOf] table',
      `${MOCK}[gateway.valueOf]\n`,
      {},
      'gateway.valueOf',
      ['is not a known key of [gateway]'],
    ],
  ] as const)(
    '%s is a config error naming the key, and the server keeps answering',
    async (_name, toml, env, key, words) => {
      const where = sandbox();
      const server = await start(where, { SYSTEM1_CONFIG: where.writeConfig(toml), ...env });
      await expectConfigProblem(server, key, [key, ...words]);
    },
  );

  it('a table named constructor with a type runs like any other alias', async () => {
    const where = sandbox();
    const toml = '[gateway]\nprovider = "constructor"\n[providers.constructor]\ntype = "mock"\nconfidence = 0.75\n';
    const server = await start(where, { SYSTEM1_CONFIG: where.writeConfig(toml) });
    expect((await server.call('system1_health')).config_errors).toEqual([]);
    expect(await server.call('system1_decide', ASK)).toMatchObject({
      status: 'decided',
      provider: 'constructor',
      confidence: 0.75,
    });
  });
});

describe('the user fit file as a special file', () => {
  fifoIt('a FIFO as calibration.json: decide is answered uncalibrated, and capabilities names the FIFO', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.install, 'calibration.json');
    const server = await start(where, { SYSTEM1_CONFIG: where.writeConfig(MOCK) });
    expect(await server.call('system1_decide', ASK)).toMatchObject({
      status: 'decided',
      provider: 'mock',
      calibrated: false,
    });
    const capabilities = await server.call('system1_capabilities');
    expect(capabilities.calibration.problems).toEqual([
      `${fifo}: cannot be read (${fifo} is a FIFO, not a regular file)`,
    ]);
    expect(await server.call('system1_decide', { ...ASK, request_id: 'again' })).toMatchObject({
      status: 'decided',
      request_id: 'again',
    });
  });

  fifoIt(
    'saving fits (calibrate --write) into a FIFO as calibration.json is refused instead of waiting for a reader',
    async () => {
      const where = sandbox();
      const fifo = makeFifo(where.install, 'calibration.json');
      const save = `require(${JSON.stringify(path.join(ROOT, 'dist', 'calibration', 'fit-store.js'))}).saveFits(process.argv[1], [])`;
      const result = await runCommand(process.execPath, ['-e', save, fifo], {
        env: where.env(),
        timeoutMs: CLI_GUARD_MS,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${fifo} is a FIFO, not a regular file`);
    },
  );
});

describe('commands given a FIFO', () => {
  fifoIt('calibrate refuses a FIFO as its data file, naming it', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.dir, 'data.jsonl');
    const result = await runCli(['calibrate', fifo], where.env({ SYSTEM1_PROVIDER: 'mock' }), CLI_GUARD_MS);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`system1 calibrate: cannot read ${fifo} (${fifo} is a FIFO, not a regular file)`);
  });

  fifoIt('router-report refuses a FIFO as the shadow log, naming it', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.dir, 'shadow.jsonl');
    const result = await runCli(['router-report', '--log', fifo], where.env(), CLI_GUARD_MS);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `system1 router-report: cannot read the shadow log ${fifo} (${fifo} is a FIFO, not a regular file)`,
    );
  });

  fifoIt('usage-report refuses a FIFO as the prices file, naming it', async () => {
    const where = sandbox();
    const fifo = makeFifo(where.dir, 'prices.json');
    const projects = path.join(where.dir, 'projects');
    mkdirSync(projects);
    writeFileSync(path.join(projects, 'README'), '');
    const result = await runCli(
      ['usage-report', '--projects-dir', projects, '--prices', fifo],
      where.env(),
      CLI_GUARD_MS,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`system1 usage-report: ${fifo} is a FIFO, not a regular file`);
  });
});
