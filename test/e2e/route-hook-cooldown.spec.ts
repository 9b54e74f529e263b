/**
 * The routing hook's cooldown across processes: a hook run is a new process per prompt, so the cooldown a
 * hanging engine earns is kept in `<install dir>/cooldown.json`, and the next prompt's hook skips the engine
 * instead of spending its whole budget on it again.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { MAIN, requireBuild, Resources, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
let endpoint: string;
beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  endpoint = (await fake.start()).origin;
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.fault = 'none';
  fake.requests.length = 0;
});

const DESIGN = 'Design the architecture for the new billing service and decide between a queue and cron jobs';
const DECISIONS = '/v1/systemone';

/** A sandbox whose config routes through laya at the fake, with an engine timeout far past the hook's budget. */
function setUp(sandbox: Sandbox, gateway = '') {
  const repo = path.join(sandbox.dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\ntimeout_s = 30\n${gateway}\n[providers.laya]\nendpoint = "${endpoint}"\n` +
      `[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${path.join(sandbox.dir, 'routing.jsonl')}"\n`,
  );
  const env = sandbox.env({ SYSTEM1_CONFIG: config });
  return { repo, env, cooldownFile: path.join(env.SYSTEM1_INSTALL_DIR, 'cooldown.json') };
}

interface HookRun {
  code: number | null;
  stdout: string;
  /** The gateway's log lines (it writes every line to stderr, and to log_file as well). */
  stderr: string;
}

function hook(env: Record<string, string>, input: Record<string, unknown>): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, 'route-hook'], { env, timeout: 10_000 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
    child.stdin!.end(
      JSON.stringify({ session_id: 's-1', hook_event_name: 'UserPromptSubmit', prompt_id: 'p-1', ...input }),
    );
  });
}

const readCooldowns = (file: string): Record<string, { failures: number; until: number }> =>
  JSON.parse(readFileSync(file, 'utf8'));

it('records the cooldown of a hanging engine in the install dir, and the next prompt skips the engine', async () => {
  fake.fault = 'hang';
  const { repo, env, cooldownFile } = setUp(resources.sandbox());
  expect(existsSync(cooldownFile)).toBe(false);

  const first = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(first).toMatchObject({ code: 0, stdout: '' });
  expect(fake.requestsTo(DECISIONS)).toHaveLength(1);
  expect(existsSync(cooldownFile)).toBe(true);
  const cooldowns = readCooldowns(cooldownFile);
  expect(Object.keys(cooldowns)).toEqual(['laya']);
  expect(cooldowns.laya).toEqual({ failures: 0, until: expect.any(Number) });
  // The window runs from the timeout, so it ends in the future (no absolute timing beyond that).
  expect(cooldowns.laya.until).toBeGreaterThan(Date.now());
  expect(first.stderr).toMatch(/no routing: laya: timeout/);

  fake.requests.length = 0;
  const second = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(second).toMatchObject({ code: 0, stdout: '' });
  expect(fake.requestsTo(DECISIONS)).toHaveLength(0);
  expect(fake.requests).toHaveLength(0);
  expect(second.stderr).toMatch(/no routing: laya: cooling_down \(cooling down: \d+ s left\)/);
  // The skip is not a new failure: the window is the one the first run started.
  expect(readCooldowns(cooldownFile)).toEqual(cooldowns);
});

it('asks the engine again once the window in the file is over, and its answer clears the cooldown', async () => {
  fake.fault = 'hang';
  const { repo, env, cooldownFile } = setUp(resources.sandbox());
  await hook(env, { cwd: repo, prompt: DESIGN });
  expect(readCooldowns(cooldownFile).laya).toBeDefined();

  // Stand in for the window running out, without waiting 30 s.
  writeFileSync(cooldownFile, JSON.stringify({ laya: { failures: 0, until: Date.now() - 1 } }));
  fake.fault = 'none';
  fake.requests.length = 0;
  const result = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({
    hookSpecificOutput: {
      hookEventName: 'UserPromptSubmit',
      additionalContext: expect.stringContaining('pass model: "opus"'),
    },
  });
  expect(fake.requestsTo(DECISIONS)).toHaveLength(1);
  expect(readCooldowns(cooldownFile)).toEqual({});
});

it('keeps no cooldown with cooldown_s = 0: every prompt asks the hanging engine', async () => {
  fake.fault = 'hang';
  const { repo, env, cooldownFile } = setUp(resources.sandbox(), 'cooldown_s = 0');
  expect(await hook(env, { cwd: repo, prompt: DESIGN })).toMatchObject({ code: 0, stdout: '' });
  expect(await hook(env, { cwd: repo, prompt: DESIGN })).toMatchObject({ code: 0, stdout: '' });
  expect(fake.requestsTo(DECISIONS)).toHaveLength(2);
  expect(existsSync(cooldownFile)).toBe(false);
});

it('treats a corrupt cooldown file as no cooldown and still exits 0', async () => {
  const { repo, env, cooldownFile } = setUp(resources.sandbox());
  mkdirSync(path.dirname(cooldownFile), { recursive: true });
  writeFileSync(cooldownFile, '{"laya": {"failures": 0, "until": ');
  const result = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toContain('pass model: "opus"');
  expect(fake.requestsTo(DECISIONS)).toHaveLength(1);
});

it('clamps an entry that ends further ahead than cooldown_s (a stale file, a clock that stepped back) and asks the engine once that window is over', async () => {
  const { repo, env, cooldownFile } = setUp(resources.sandbox(), 'cooldown_s = 0.5');
  mkdirSync(path.dirname(cooldownFile), { recursive: true });
  // Ten years ahead: without the clamp the engine would be skipped until then.
  writeFileSync(cooldownFile, JSON.stringify({ laya: { failures: 0, until: Date.now() + 10 * 365 * 24 * 3600_000 } }));

  const before = Date.now();
  const skipped = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(skipped).toMatchObject({ code: 0, stdout: '' });
  expect(fake.requestsTo(DECISIONS)).toHaveLength(0);
  expect(skipped.stderr).toMatch(/no routing: laya: cooling_down/);
  // The file now holds a window of at most cooldown_s from the run, not the one it was given.
  const clamped = readCooldowns(cooldownFile).laya;
  expect(clamped.until).toBeLessThanOrEqual(Date.now() + 500);
  expect(clamped.until).toBeGreaterThan(before);

  // Wait out the clamped window (half a second; bounded, the test asserts no timing).
  while (Date.now() <= clamped.until)
    await new Promise((resolve) => setTimeout(resolve, clamped.until - Date.now() + 5));
  const asked = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(JSON.parse(asked.stdout).hookSpecificOutput.additionalContext).toContain('pass model: "opus"');
  expect(fake.requestsTo(DECISIONS)).toHaveLength(1);
  expect(readCooldowns(cooldownFile)).toEqual({});
});
