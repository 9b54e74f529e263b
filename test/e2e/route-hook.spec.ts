/** `system1 route-hook` driven as Claude Code drives it: the hook JSON on stdin, a fake laya behind it. */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { MAIN, requireBuild, Resources, type Sandbox } from './helpers/gateway';
import { runMeasured } from './helpers/max-rss';

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
  fake.slowMs = 5000;
  fake.requests.length = 0;
});

const DESIGN = 'Design the architecture for the new billing service and decide between a queue and cron jobs';

interface Setup {
  routing?: string;
  gateway?: string;
  /** Keep the hook's default 1.5 s budget; otherwise 10 s, since these tests check what it says, not how fast. */
  defaultBudget?: boolean;
}

function setUp(sandbox: Sandbox, { routing = '', gateway = '', defaultBudget = false }: Setup = {}) {
  const repo = path.join(sandbox.dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const logFile = path.join(sandbox.dir, 'routing.jsonl');
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\n${gateway}\n[providers.laya]\nendpoint = "${endpoint}"\n` +
      `[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${logFile}"\n${routing}\n`,
  );
  return {
    repo,
    logFile,
    env: sandbox.env({ SYSTEM1_CONFIG: config, ...(!defaultBudget && { SYSTEM1_ROUTING_BUDGET_MS: '10000' }) }),
  };
}

/** Runs the hook; a hook still running at `killAfterMs` is killed and reads as code null. */
function hook(
  env: Record<string, string>,
  input: Record<string, unknown>,
  killAfterMs = 10_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, 'route-hook'],
      { env, timeout: killAfterMs },
      (error, stdout, stderr) =>
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

it('gives a one-line tier hint for a long design prompt, from one engine pass for the four features', async () => {
  const sandbox = resources.sandbox();
  const { repo, env } = setUp(sandbox);
  const result = await hook(env, { cwd: repo, prompt: DESIGN });
  expect(result.code).toBe(0);
  const output = JSON.parse(result.stdout);
  expect(output).toEqual({
    hookSpecificOutput: {
      hookEventName: 'UserPromptSubmit',
      additionalContext: expect.stringContaining('pass model: "opus"'),
    },
  });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const calls = fake.requestsTo('/v1/systemone');
  expect(calls).toHaveLength(1);
  expect(Object.keys((calls[0].body as { questions: object }).questions)).toEqual([
    'read_only',
    'design',
    'review',
    'specified',
  ]);
  expect((calls[0].body as { state: object }).state).toEqual({ prompt: DESIGN });
});

it.each([
  ['a slash command', {}, { prompt: '/system1:doctor check everything about the gateway please, it is down again' }],
  ['a prompt under 10 words', {}, { prompt: 'and now fix the other one too' }],
  [
    'a subagent hand-back',
    {},
    {
      prompt:
        '<task-notification> the background agent finished reviewing the auth module, see report </task-notification>',
    },
  ],
  ['a hand-back marked source system', {}, { prompt: DESIGN, source: 'system' }],
  ['routing off', { routing: 'enabled = false' }, { prompt: DESIGN }],
  ['an abstaining engine', { routing: 'min_confidence = 0.9' }, { prompt: DESIGN }],
  ['record-only mode', { routing: 'hint = false' }, { prompt: DESIGN }],
])('stays silent for %s', async (_name, setup: Setup, input) => {
  const sandbox = resources.sandbox();
  const { repo, env } = setUp(sandbox, setup);
  const result = await hook(env, { cwd: repo, ...input });
  expect(result).toMatchObject({ code: 0, stdout: '' });
});

it('stays silent while paused, when the engine fails, and when it is not installed', async () => {
  const sandbox = resources.sandbox();
  const { repo, env } = setUp(sandbox);
  mkdirSync(env.SYSTEM1_INSTALL_DIR, { recursive: true });
  writeFileSync(path.join(env.SYSTEM1_INSTALL_DIR, 'paused'), 'paused');
  expect(await hook(env, { cwd: repo, prompt: DESIGN })).toMatchObject({ code: 0, stdout: '' });
  const running = setUp(resources.sandbox());
  fake.fault = 'status-500';
  expect(await hook(running.env, { cwd: running.repo, prompt: DESIGN })).toMatchObject({ code: 0, stdout: '' });
  const missing = resources.sandbox();
  const config = missing.writeConfig(
    '[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "http://127.0.0.1:9"\n[routing]\nenabled = true\n',
  );
  expect(await hook(missing.env({ SYSTEM1_CONFIG: config }), { prompt: DESIGN })).toMatchObject({
    code: 0,
    stdout: '',
  });
});

it('gives up at its own 1.5 s budget, not at the engine timeout of 30 s, when the engine hangs', async () => {
  fake.fault = 'hang';
  const sandbox = resources.sandbox();
  const { repo, env } = setUp(sandbox, { gateway: 'timeout_s = 30', defaultBudget: true });
  // Killed at 25 s, before the engine's 30 s: exiting 0 by itself means the hook gave up at its own budget.
  // How soon, start-up included, is bench/'s to measure; a loaded CI machine must not turn it into a failure.
  const result = await hook(env, { cwd: repo, prompt: DESIGN }, 25_000);
  expect(result).toMatchObject({ code: 0, stdout: '' });
});

it('waits as long as [routing] budget_ms says: an engine answering after 2 s gives no hint at the default 1.5 s and a hint with 10 s', async () => {
  fake.fault = 'slow';
  fake.slowMs = 2000;
  const hurried = setUp(resources.sandbox(), { gateway: 'timeout_s = 30', defaultBudget: true });
  expect(await hook(hurried.env, { cwd: hurried.repo, prompt: DESIGN }, 25_000)).toMatchObject({ code: 0, stdout: '' });
  // A sandbox of its own: the first hook's give-up cooled the engine in its install dir's cooldown file.
  const { repo, env } = setUp(resources.sandbox(), { gateway: 'timeout_s = 30', defaultBudget: true });
  const patient = await hook({ ...env, SYSTEM1_ROUTING_BUDGET_MS: '10000' }, { cwd: repo, prompt: DESIGN }, 25_000);
  expect(patient).toMatchObject({ code: 0, stdout: expect.stringContaining('pass model: \\"opus\\"') });
});

it('logs a prompt only when Claude Code works inside one of log_dirs', async () => {
  const sandbox = resources.sandbox();
  const { repo, logFile, env } = setUp(sandbox, { routing: 'hint = false' });
  await hook(env, { cwd: path.join(sandbox.dir, 'elsewhere'), prompt: DESIGN });
  expect(existsSync(logFile)).toBe(false);
  await hook(env, { cwd: path.join(repo, 'src', 'billing'), prompt: DESIGN });
  const lines = readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    source: 'routing',
    prompt: DESIGN,
    provider: 'laya',
    tier: 'opus',
    hinted: false,
    prompt_id: 'p-1',
  });
  expect(Object.keys(lines[0].features)).toEqual(['read_only', 'design', 'review', 'specified']);
});

describe('what the hook writes', () => {
  /** The tester's prompt id: clears the screen, turns it red, rewinds the line and rings the bell. */
  const FORGED = 'x\u001b[2J\u001b[31mFAKE\rZZZZ forged\u0007';
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

  it('escapes a forged prompt_id in its log lines, on stderr and in log_file, one record per line', async () => {
    const sandbox = resources.sandbox();
    const gatewayLog = path.join(sandbox.dir, 'gateway.log');
    const { repo, env } = setUp(sandbox, { gateway: `log_file = "${gatewayLog}"` });
    const result = await hook(env, { cwd: repo, prompt: DESIGN, prompt_id: FORGED });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toContain('pass model: "opus"');
    for (const written of [result.stderr, readFileSync(gatewayLog, 'utf8')]) {
      expect(written).toContain('[x\\u001b[2J\\u001b[31mFAKE\\rZZZZ forged\\u0007] hint: opus');
      const records = written.split('\n').filter(Boolean);
      for (const record of records) {
        expect(record).not.toMatch(CONTROL);
        expect(record).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z [A-Z]+ /);
      }
    }
  });

  it('does not route a hook input over its cap: no hint, exit 0, the reason on stderr, memory bounded', async () => {
    const sandbox = resources.sandbox();
    const { repo, logFile, env } = setUp(sandbox);
    const prompt = `${DESIGN} `.repeat(Math.ceil((60 * 1024 * 1024) / (DESIGN.length + 1))); // a 60 MB paste
    const input = JSON.stringify({
      session_id: 's-1',
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'p-big',
      cwd: repo,
      prompt,
    });
    const result = await runMeasured(sandbox.dir, ['route-hook'], env, input);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toMatch(/the hook input is over the \d+ MiB cap: no routing for this prompt/);
    expect(fake.requestsTo('/v1/systemone')).toEqual([]);
    expect(existsSync(logFile)).toBe(false);
    // Reading all 60 MB took 1.2 GB; a hook that stops at its cap stays near its start-up size.
    expect(result.maxRssMiB).toBeLessThan(300);
  });

  it('logs a long prompt cut to a fixed length, with how long it was, and still routes it', async () => {
    const sandbox = resources.sandbox();
    const { repo, logFile, env } = setUp(sandbox);
    const prompt = `${DESIGN}. `.repeat(4000); // about 380,000 characters, within the input cap
    const result = await hook(env, { cwd: repo, prompt });
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toContain('pass model: "opus"');
    const [entry] = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entry.prompt.length).toBeLessThan(70_000);
    expect(prompt.startsWith(entry.prompt.slice(0, 60_000))).toBe(true);
    expect(entry.prompt).toContain(`[truncated: ${prompt.length.toLocaleString('en-US')} characters in all]`);
  });
});

describe('system1 spawn-hook (PreToolUse on the Agent tool)', () => {
  const spawnHook = (env: Record<string, string>, input: Record<string, unknown>) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [MAIN, 'spawn-hook'], { env, timeout: 10_000 }, (error, stdout) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout: String(stdout) }),
      );
      child.stdin!.end(JSON.stringify(input));
    });
  const SPAWN = {
    session_id: 's-1',
    prompt_id: 'p-1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Agent',
    tool_input: {
      description: 'Review auth module',
      prompt: 'Review src/auth/ for token-expiry bugs.',
      subagent_type: 'general-purpose',
      model: 'sonnet',
    },
    tool_use_id: 'toolu_01Fz8Kd2Lm5Np7Qr3St6Uv9W',
  };

  it('records the model the orchestrator chose next to the prompt, silently, inside log_dirs only', async () => {
    const sandbox = resources.sandbox();
    const { repo, logFile, env } = setUp(sandbox);
    expect(await spawnHook(env, { ...SPAWN, cwd: path.join(sandbox.dir, 'elsewhere') })).toEqual({
      code: 0,
      stdout: '',
    });
    expect(existsSync(logFile)).toBe(false);
    expect(await spawnHook(env, { ...SPAWN, cwd: repo })).toEqual({ code: 0, stdout: '' });
    expect(await spawnHook(env, { ...SPAWN, cwd: repo, tool_name: 'Bash', tool_input: { command: 'ls' } })).toEqual({
      code: 0,
      stdout: '',
    });
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        source: 'spawn',
        session_id: 's-1',
        prompt_id: 'p-1',
        tool_use_id: SPAWN.tool_use_id,
        model: 'sonnet',
        subagent_type: 'general-purpose',
        nested: false,
      }),
    ]);
  });
});

describe('the skill picker', () => {
  const SKILLS = ['pdf-forms', 'sql-migrations', 'release-notes'];
  const addSkills = (home: string, names: string[]) => {
    for (const name of names) {
      mkdirSync(path.join(home, '.claude', 'skills', name), { recursive: true });
      writeFileSync(
        path.join(home, '.claude', 'skills', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Helps with ${name.replace('-', ' ')}.\n---\nBody.\n`,
      );
    }
  };
  const skillCalls = () =>
    fake.requestsTo('/v1/systemone').filter((r) => 'skill' in ((r.body as { questions: object }).questions ?? {}));

  it('names the fitting skill beside the routing hint when its hint is on', async () => {
    const sandbox = resources.sandbox();
    addSkills(sandbox.home, SKILLS);
    const { repo, env } = setUp(sandbox, { routing: '[skills]\nenabled = true\nhint = true\nmin_confidence = 0.4' });
    const result = await hook(env, { cwd: repo, prompt: DESIGN });
    const context: string = JSON.parse(result.stdout).hookSpecificOutput.additionalContext;
    const [asked] = skillCalls();
    const first = (asked.body as { questions: { skill: { criteria: string[] } } }).questions.skill.criteria[0];
    expect(context.split('\n')).toEqual([
      expect.stringContaining('pass model: "opus"'),
      `System-1 skills: the "${first}" skill fits this prompt.`,
    ]);
    expect((asked.body as { state: { skills: object } }).state.skills).toMatchObject({
      'sql-migrations': 'Helps with sql migrations.',
    });
  });

  it('skips a SKILL.md that is a FIFO instead of waiting on it, and picks among the others', async () => {
    const sandbox = resources.sandbox();
    addSkills(sandbox.home, SKILLS);
    mkdirSync(path.join(sandbox.home, '.claude', 'skills', 'stuck'));
    execFileSync('mkfifo', [path.join(sandbox.home, '.claude', 'skills', 'stuck', 'SKILL.md')]);
    const { repo, env } = setUp(sandbox, { routing: '[skills]\nenabled = true\nhint = true\nmin_confidence = 0.4' });
    // hook() has a kill timer: a regression that opens the FIFO comes back killed (code null), not hung.
    const result = await hook(env, { cwd: repo, prompt: DESIGN });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toContain('System-1 skills: the "');
    const [asked] = skillCalls();
    expect(Object.keys((asked.body as { state: { skills: object } }).state.skills).sort()).toEqual([...SKILLS].sort());
  });

  it('only records its pick when its hint is off, and stays dormant when the skills outnumber the options', async () => {
    const sandbox = resources.sandbox();
    addSkills(sandbox.home, SKILLS);
    const { repo, logFile, env } = setUp(sandbox, {
      routing: 'hint = false\n[skills]\nenabled = true\nmin_confidence = 0.4',
    });
    expect(await hook(env, { cwd: repo, prompt: DESIGN })).toMatchObject({ code: 0, stdout: '' });
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.source)).toEqual(['routing', 'skill']);
    expect(SKILLS).toContain(lines[1].skill);

    fake.requests.length = 0;
    const crowded = resources.sandbox();
    addSkills(
      crowded.home,
      Array.from({ length: 25 }, (_, i) => `skill-${i}`),
    );
    const many = setUp(crowded, { routing: '[skills]\nenabled = true\nhint = true\nmin_confidence = 0.01' });
    const result = await hook(many.env, { cwd: many.repo, prompt: DESIGN });
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).not.toContain('System-1 skills');
    expect(skillCalls()).toEqual([]); // laya takes 20 options: no engine call for 25 skills
  });
});
