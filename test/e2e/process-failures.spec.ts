/**
 * What a process says when something fails outside any request, stated once (issue 40): a start that fails
 * reads the same from the lean `mcp` path (its bundle) and from a nest-commander command (main.ts), and a stray
 * rejection is logged, not fatal, in both long-lived servers (`mcp` and `serve-http`), which go on answering.
 */
import { join } from 'node:path';
import { type Env, requireBuild, Resources, runCli } from './helpers/gateway';
import { HttpServerProcess } from './helpers/http-server-process';
import { eventually } from '../helpers/eventually';

beforeAll(requireBuild);

const resources = Resources.perTest();
const MOCK = '[gateway]\nprovider = "mock"\n';
const faulty = (fault: string): Env => ({
  NODE_OPTIONS: `--require ${join(__dirname, 'helpers', 'process-faults.cjs')}`,
  SYSTEM1_TEST_FAULT: fault,
});

/** The failure's line without its time stamp and stack: what a user reads first. */
const firstLine = (stderr: string, pattern: RegExp) => {
  const line = stderr.split('\n').find((text) => pattern.test(text)) ?? `(no line matching ${pattern} in:\n${stderr})`;
  return line.replace(/^\S+ /, '').replace(/\\n.*$/, '');
};

it('a start that fails says so in the same words on the lean mcp path and on a CLI command, and exits 1', async () => {
  const sandbox = resources.sandbox();
  const lean = await runCli(['mcp'], sandbox.env(faulty('no-stdin')));
  const command = await runCli(['toggle', 'status'], sandbox.env(faulty('no-container')));
  expect([lean.code, command.code]).toEqual([1, 1]);
  expect([lean.stdout, command.stdout]).toEqual(['', '']);
  expect(firstLine(lean.stderr, /failed to start/)).toBe(
    'ERROR [Cli] system1 failed to start: Error: the test took stdin away',
  );
  expect(firstLine(command.stderr, /failed to start/)).toBe(
    'ERROR [Cli] system1 failed to start: Error: the test broke the container',
  );
});

it('a stray rejection in mcp is logged as one, and the server goes on answering', async () => {
  const session = await resources.server({ config: MOCK, env: faulty('reject-on-signal') });
  process.kill(session.pid!, 'SIGUSR2');
  await eventually(() => session.stderr().includes('unhandled rejection'), 'the stray rejection to be logged');
  expect((await session.decide({ question: 'Still there?' })).body.status).toBe('decided');
  expect(firstLine(session.stderr(), /unhandled rejection/)).toBe(
    'ERROR [Mcp] unhandled rejection: Error: a stray rejection from the test',
  );
});

it('a stray rejection in serve-http is logged in the same words, and the server goes on answering', async () => {
  const sandbox = resources.sandbox();
  const server = await HttpServerProcess.start(sandbox, {
    SYSTEM1_CONFIG: sandbox.writeConfig(MOCK),
    ...faulty('reject-on-signal'),
  });
  try {
    server.child.kill('SIGUSR2');
    await server.waitForStderr(/unhandled rejection/);
    expect((await fetch(server.urlOf('/healthz'))).status).toBe(200);
    expect(firstLine(server.stderr(), /unhandled rejection/)).toBe(
      'ERROR [Http] unhandled rejection: Error: a stray rejection from the test',
    );
  } finally {
    server.kill();
    await server.exited;
  }
});
