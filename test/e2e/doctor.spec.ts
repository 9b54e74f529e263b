/**
 * `system1 doctor` as a newcomer runs it when something is off: a fresh HOME, Claude Code's config as
 * `claude mcp add` leaves it (or none), and the four checks with their fixes. Engines are the mock or a closed
 * port on loopback; nothing leaves this machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Env, MAIN, requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';
import { closedPort } from './helpers/no-engines';

jest.setTimeout(120_000);
const resources = Resources.perTest();

beforeAll(requireBuild);

type Report = { ok: boolean; checks: { check: string; status: string; detail: string; fix?: string }[] };

/** Writes ~/.claude.json with `system1` registered at user scope, as `claude mcp add --scope user` does. */
function registerWithClaude(sandbox: Sandbox, args: string[], env: Env = {}): void {
  const servers = { system1: { type: 'stdio', command: process.execPath, args, env } };
  writeFileSync(path.join(sandbox.home, '.claude.json'), JSON.stringify({ numStartups: 3, mcpServers: servers }));
}

async function doctor(sandbox: Sandbox, env: Env): Promise<{ code: number | null; report: Report; stdout: string }> {
  const json = await runCli(['doctor', '--json'], sandbox.env(env));
  return { code: json.code, report: JSON.parse(json.stdout) as Report, stdout: json.stdout };
}

const byName = (report: Report, name: string) => report.checks.find((check) => check.check === name)!;

it('passes every check for a registered server on a working engine, and shows the last decisions of its log', async () => {
  const sandbox = resources.sandbox();
  const logFile = path.join(sandbox.dir, 'gateway.log');
  const env = { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_PLACEHOLDER: 'false', SYSTEM1_LOG_FILE: logFile };
  registerWithClaude(sandbox, [MAIN, 'mcp'], env);
  // an earlier decision a client asked, in the log the server keeps
  const asked = await runCli(['smoke', '--question', 'Ship it?', '--options', 'ship', 'hold'], sandbox.env(env));
  expect(asked.code).toBe(0);

  const { code, report } = await doctor(sandbox, env);
  expect(report.checks.map((check) => [check.check, check.status])).toEqual([
    ['registered', 'pass'],
    ['starts', 'pass'],
    ['health', 'pass'],
    ['decisions', 'pass'],
  ]);
  expect(code).toBe(0);
  expect(byName(report, 'registered').detail).toContain(`user scope in ${path.join(sandbox.home, '.claude.json')}`);
  expect(byName(report, 'health').detail).toContain('WARNING: the only engine is the mock');
  expect(byName(report, 'health').fix).toContain('system1 engine pull reranker');
  expect(byName(report, 'decisions').detail).toMatch(/the last 2 in .*gateway\.log: smoke-\d+ decided by mock/);
});

it('fails, naming the fix, when the engine is down and Claude Code has no system1 registered; exit 1', async () => {
  const sandbox = resources.sandbox();
  writeFileSync(path.join(sandbox.home, '.claude.json'), JSON.stringify({ mcpServers: {} }));
  const env = { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: `http://127.0.0.1:${await closedPort()}` };
  const human = await runCli(['doctor'], sandbox.env(env));
  expect(human.code).toBe(1);
  expect(human.stdout).toMatch(/^FAIL  registered +no system1 server in .*\.claude\.json$/m);
  expect(human.stdout).toMatch(
    /^ +fix: claude mcp add --scope user --transport stdio system1 -- node .*main\.js" mcp$/m,
  );
  expect(human.stdout).toMatch(/^PASS  starts /m);
  expect(human.stdout).toMatch(/^FAIL  health +down: no provider answers its health check\. laya \(primary\) DOWN/m);
  expect(human.stdout).toMatch(/^ +fix: start the engine, or set a fallback/m);
  expect(human.stdout).toContain('Failed: registered, health, decisions.');
});

it('fails the registration that points at a copy no longer there, with the commands that fix it', async () => {
  const sandbox = resources.sandbox();
  const gone = path.join(sandbox.dir, 'removed', 'app', 'dist', 'main.js');
  mkdirSync(path.dirname(path.dirname(gone)), { recursive: true });
  registerWithClaude(sandbox, [gone, 'mcp']);
  const { code, report } = await doctor(sandbox, { SYSTEM1_PROVIDER: 'mock' });
  expect(code).toBe(1);
  expect(byName(report, 'registered')).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining(`but ${gone} does not exist`),
    fix: expect.stringMatching(/^claude mcp remove --scope user system1, then claude mcp add /),
  });
  expect(byName(report, 'starts').status).toBe('fail');
});

it('skips the registration without a Claude Code config, and says how to register', async () => {
  const sandbox = resources.sandbox();
  const { report } = await doctor(sandbox, { SYSTEM1_PROVIDER: 'mock' });
  expect(byName(report, 'registered')).toMatchObject({
    status: 'skip',
    fix: expect.stringContaining('claude mcp add'),
  });
  expect(byName(report, 'decisions').fix).toContain('set [gateway] log_file');
  expect(report.ok).toBe(true);
});
