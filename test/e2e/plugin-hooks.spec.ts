/**
 * The plugin's hooks as Claude Code runs them: `sh plugin/hooks/run.sh <command>` with the hook JSON on stdin
 * (fixtures from claude-code-formats.md), against an installed copy or none.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { requireBuild, Resources, ROOT } from './helpers/gateway';

const RUN = path.join(ROOT, 'plugin', 'hooks', 'run.sh');
const resources = Resources.perTest();

const PROMPT_FIXTURE = {
  session_id: '6f1c2b7e-3d94-4a51-9c0e-8b2f5a7d1e36',
  transcript_path: '/home/dev/.claude/projects/-home-dev-work-shop-api/6f1c2b7e-3d94-4a51-9c0e-8b2f5a7d1e36.jsonl',
  cwd: '/home/dev/work/shop-api',
  prompt_id: '2a9c4e61-8f0b-4d37-b5a2-6c1e9f3d7b40',
  permission_mode: 'default',
  hook_event_name: 'UserPromptSubmit',
  prompt: 'Review the auth module and check the migration script for locking problems on the orders table',
};

function run(
  command: string,
  env: Record<string, string>,
  stdin: unknown,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile('sh', [RUN, command], { env, timeout: 10_000 }, (error, stdout) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout: String(stdout) }),
    );
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(stdin === undefined ? '' : JSON.stringify(stdin));
  });
}

beforeAll(requireBuild);

it('stays silent without an installed copy, but for a pointer to /system1:setup at session start', async () => {
  const env = resources.sandbox().env();
  expect(await run('route-hook', env, PROMPT_FIXTURE)).toEqual({ code: 0, stdout: '' });
  expect(
    await run('spawn-hook', env, {
      ...PROMPT_FIXTURE,
      hook_event_name: 'PreToolUse',
      tool_name: 'Agent',
      tool_input: {},
    }),
  ).toEqual({ code: 0, stdout: '' });
  expect(await run('session-check', env, { hook_event_name: 'SessionStart', source: 'startup' })).toEqual({
    code: 0,
    stdout: 'System-1 is not installed yet: run /system1:setup to install it.\n',
  });
});

it('runs the installed copy: a review prompt gets a hint, the spawn is recorded, the session check is quiet', async () => {
  const fake = new LayaFake();
  const endpoint = (await fake.start()).origin;
  try {
    const sandbox = resources.sandbox();
    mkdirSync(sandbox.install, { recursive: true });
    symlinkSync(ROOT, path.join(sandbox.install, 'app')); // stands in for install.sh's copy
    const logFile = path.join(sandbox.dir, 'routing.jsonl');
    const config = sandbox.writeConfig(
      `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${endpoint}"\n[routing]\nenabled = true\nlog_dirs = ["/home/dev/work"]\nlog_file = "${logFile}"\n`,
    );
    // The hook's whole budget raised to 10 s: this checks what it says, not how fast (a loaded machine is slow).
    const env = sandbox.env({ SYSTEM1_CONFIG: config, SYSTEM1_ROUTING_BUDGET_MS: '10000' });
    const hinted = await run('route-hook', env, PROMPT_FIXTURE);
    expect(hinted.code).toBe(0);
    expect(JSON.parse(hinted.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: 'UserPromptSubmit',
      additionalContext: expect.stringContaining('pass model: "opus"'),
    });
    const spawn = {
      ...PROMPT_FIXTURE,
      hook_event_name: 'PreToolUse',
      tool_name: 'Agent',
      tool_input: { description: 'Review auth module', prompt: 'Review src/auth/', model: 'sonnet' },
      tool_use_id: 'toolu_01Fz8Kd2Lm5Np7Qr3St6Uv9W',
    };
    expect(await run('spawn-hook', env, spawn)).toEqual({ code: 0, stdout: '' });
    expect(await run('session-check', env, { hook_event_name: 'SessionStart', source: 'startup' })).toEqual({
      code: 0,
      stdout: '',
    });
    const sources = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).source);
    expect(sources).toEqual(['routing', 'spawn']);
  } finally {
    await fake.stop();
  }
});
