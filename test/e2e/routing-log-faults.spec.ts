/**
 * A routing log that cannot be written (a device or a FIFO instead of a file, a symbolic link, a folder that is
 * not one, a folder the user may not write): the hooks still answer Claude Code, exit 0 and say why in the log; `outcomes --apply` says no label
 * was written and exits 1. Nothing crashes and no decision is lost.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { type Env, MAIN, requireBuild, Resources, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'transcripts', 'two-spawns.jsonl');
const DESIGN = 'Design the architecture for the new billing service and decide between a queue and cron jobs';
let fake: LayaFake;

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  await fake.start();
});
afterAll(() => fake.stop());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with a kill timer: a regression that blocks on a FIFO comes back killed (code null), not hung. */
function run(args: string[], env: Env, stdin?: unknown): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], { env, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
    child.stdin!.end(stdin === undefined ? '' : JSON.stringify(stdin));
  });
}

/** A routing setup whose log is `logFile`, with the repo inside log_dirs. */
function setUp(sandbox: Sandbox, logFile: string) {
  const repo = path.join(sandbox.dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${fake.url.origin}"\n` +
      `[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${logFile}"\n`,
  );
  return { repo, env: sandbox.env({ SYSTEM1_CONFIG: config }) };
}

const unwritable: [string, (sandbox: Sandbox) => string, RegExp][] = [
  // Only a regular file is appended to: a device would swallow or refuse the lines, a FIFO block the hook.
  ['a device (/dev/full)', () => '/dev/full', /\/dev\/full is a character device, not a regular file/],
  [
    'a FIFO',
    (sandbox) => {
      const fifo = path.join(sandbox.dir, 'routing.fifo');
      execFileSync('mkfifo', [fifo]);
      return fifo;
    },
    /routing\.fifo is a FIFO, not a regular file/,
  ],
  [
    // One planted where the log will be would aim the hooks' lines at a file a shell runs: nothing is written.
    'a symbolic link to a file elsewhere',
    (sandbox) => {
      const elsewhere = path.join(sandbox.dir, 'profile');
      writeFileSync(elsewhere, 'export EDITOR=vi\n');
      const link = path.join(sandbox.dir, 'routing.jsonl');
      symlinkSync(elsewhere, link);
      return link;
    },
    /routing\.jsonl is a symbolic link \(to .*profile\), not a regular file/,
  ],
  [
    'a log folder that is a file',
    (sandbox) => {
      writeFileSync(path.join(sandbox.dir, 'logs'), 'not a folder');
      return path.join(sandbox.dir, 'logs', 'routing.jsonl');
    },
    /ENOTDIR|EEXIST/,
  ],
];
// Root writes through permission bits, so a read-only folder can only be played by another user.
if (process.getuid?.() !== 0) {
  unwritable.push([
    'a read-only folder',
    (sandbox) => {
      const dir = path.join(sandbox.dir, 'readonly');
      mkdirSync(dir);
      chmodSync(dir, 0o555);
      return path.join(dir, 'routing.jsonl');
    },
    /EACCES/,
  ]);
}

describe.each(unwritable)('a routing log on %s', (_what, logFileIn, code) => {
  it('still gives the route hook’s hint, exits 0 and names the problem on stderr', async () => {
    const sandbox = resources.sandbox();
    const logFile = logFileIn(sandbox);
    const { repo, env } = setUp(sandbox, logFile);
    const result = await run(['route-hook'], env, {
      session_id: 's-1',
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'p-1',
      cwd: repo,
      prompt: DESIGN,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      hookSpecificOutput: { additionalContext: expect.stringContaining('opus') },
    });
    expect(result.stderr).toContain(`cannot write the routing log ${logFile}`);
    expect(result.stderr).toMatch(code);
  });

  it('lets the spawn hook exit 0 with nothing on stdout', async () => {
    const sandbox = resources.sandbox();
    const logFile = logFileIn(sandbox);
    const { repo, env } = setUp(sandbox, logFile);
    const spawn = {
      session_id: 's-1',
      hook_event_name: 'PreToolUse',
      cwd: repo,
      tool_name: 'Agent',
      tool_use_id: 'toolu_1',
      tool_input: { description: 'Review', prompt: 'Review it', model: 'sonnet' },
    };
    const result = await run(['spawn-hook'], env, spawn);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain(`cannot write the routing log ${logFile}`);
    expect(result.stderr).toMatch(code);
  });

  it('makes outcomes --apply say no label was written, and exit 1', async () => {
    const sandbox = resources.sandbox();
    const logFile = logFileIn(sandbox);
    const projects = path.join(sandbox.dir, 'projects', '-home-dev-shop');
    mkdirSync(projects, { recursive: true });
    writeFileSync(path.join(projects, 'session.jsonl'), readFileSync(FIXTURE, 'utf8'));
    const env = sandbox.env({ SYSTEM1_ROUTING_LOG_FILE: logFile });
    const result = await run(
      ['outcomes', '--projects-dir', path.join(sandbox.dir, 'projects'), '--apply', '--json'],
      env,
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ spawns: 2, applied_to: null });
    expect(result.stderr).toContain(`outcomes: cannot write the routing log ${logFile}`);
    expect(result.stderr).toContain('no label was written');
  });
});
