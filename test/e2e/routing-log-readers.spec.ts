/**
 * The commands that read the routing log or Claude Code's transcripts (`session-check`, `evaluate`,
 * `outcomes`), given a file that is not one (a FIFO) or one far larger than what it holds (a 1 GiB sparse
 * prefix): each answers and exits without waiting on a writer, and its memory stays bounded. Every child
 * runs under a kill timer, so a regression that blocks on a FIFO comes back killed (code null), never hangs.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { requireBuild, Resources, type Sandbox } from './helpers/gateway';
import { runMeasured } from './helpers/max-rss';

const resources = Resources.perTest();
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'transcripts', 'two-spawns.jsonl');
const GIB = 1024 * 1024 * 1024;
/** Peak RSS a reader may reach: its start-up is well under this, and reading a 1 GiB file whole took 1.1 GB. */
const RSS_BOUND_MIB = 300;
let fake: LayaFake;

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  await fake.start();
});
afterAll(() => fake.stop());

const routingEntries = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      ts: '2026-11-30T09:14:02.118Z',
      session_id: 's-1',
      prompt_id: `p-${i}`,
      cwd: '/home/dev/shop',
      source: 'routing',
      prompt: 'Design the billing service',
      provider: 'laya',
      tier: 'opus',
      hinted: false,
    }),
  ).join('\n') + '\n';

/** A file of `size` bytes of holes (reads as NUL bytes, one endless line) followed by `text` on a line of its own. */
function sparseThen(file: string, size: number, text: string): string {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `\n${text}`, size);
  } finally {
    closeSync(fd);
  }
  return file;
}

function fifo(dir: string, name: string): string {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/** Routing on with a healthy engine, so session-check reaches the log; the log at `logFile`. */
function routingEnv(sandbox: Sandbox, logFile: string) {
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${fake.url.origin}"\n[routing]\nenabled = true\nlog_file = "${logFile}"\n`,
  );
  return sandbox.env({ SYSTEM1_CONFIG: config });
}

describe('session-check (the SessionStart hook)', () => {
  it('suggests calibration once 30 logged prompts wait for labels', async () => {
    const sandbox = resources.sandbox();
    const logFile = path.join(sandbox.dir, 'routing.jsonl');
    writeFileSync(logFile, routingEntries(31));
    const result = await runMeasured(sandbox.dir, ['session-check'], routingEnv(sandbox, logFile));
    expect(result).toMatchObject({
      code: 0,
      stdout: '31 logged prompts are waiting for labels: /system1:calibrate fits System-1 to your work.\n',
    });
  });

  it('stays quiet and exits when the routing log is a FIFO, saying why on stderr', async () => {
    const sandbox = resources.sandbox();
    const logFile = fifo(sandbox.dir, 'routing.jsonl');
    const result = await runMeasured(sandbox.dir, ['session-check'], routingEnv(sandbox, logFile));
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain(`${logFile} is a FIFO, not a regular file`);
  });

  it('reads only the tail of a 1 GiB log, in bounded memory, and still counts the prompts there', async () => {
    const sandbox = resources.sandbox();
    const logFile = sparseThen(path.join(sandbox.dir, 'routing.jsonl'), GIB, routingEntries(40));
    const result = await runMeasured(sandbox.dir, ['session-check'], routingEnv(sandbox, logFile));
    expect(result).toMatchObject({
      code: 0,
      stdout: 'At least 40 logged prompts are waiting for labels: /system1:calibrate fits System-1 to your work.\n',
    });
    expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
  });
});

describe('evaluate', () => {
  it('names a FIFO given as the log and exits 1, instead of waiting for a writer', async () => {
    const sandbox = resources.sandbox();
    const logFile = fifo(sandbox.dir, 'routing.jsonl');
    const result = await runMeasured(sandbox.dir, ['evaluate', '--log', logFile, '--json'], sandbox.env());
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ verdict: 'NOT READY', prompts_routed: 0 });
    expect(report.reasons).toContain(`cannot read the routing log: ${logFile} is a FIFO, not a regular file`);
  });

  it('streams a 1 GiB log in bounded memory, skipping the over-long line, and counts every entry', async () => {
    const sandbox = resources.sandbox();
    const logFile = sparseThen(path.join(sandbox.dir, 'routing.jsonl'), GIB, routingEntries(40));
    const result = await runMeasured(sandbox.dir, ['evaluate', '--log', logFile, '--json'], sandbox.env());
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ verdict: 'NOT READY', prompts_routed: 40 });
    expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
  });
});

describe('outcomes (reads the transcripts)', () => {
  function projects(sandbox: Sandbox): string {
    const dir = path.join(sandbox.dir, 'projects', '-home-dev-shop');
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  it('skips a FIFO named like a transcript and labels the real ones', async () => {
    const sandbox = resources.sandbox();
    const dir = projects(sandbox);
    writeFileSync(path.join(dir, 'session.jsonl'), readFileSync(FIXTURE, 'utf8'));
    fifo(dir, 'stuck.jsonl');
    const result = await runMeasured(
      sandbox.dir,
      ['outcomes', '--projects-dir', path.dirname(dir), '--json'],
      sandbox.env(),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ transcripts: 1, spawns: 2 });
  });

  it('streams a transcript with a 1 GiB line in bounded memory and finds the spawns after it', async () => {
    const sandbox = resources.sandbox();
    const dir = projects(sandbox);
    sparseThen(path.join(dir, 'session.jsonl'), GIB, readFileSync(FIXTURE, 'utf8'));
    const result = await runMeasured(
      sandbox.dir,
      ['outcomes', '--projects-dir', path.dirname(dir), '--json'],
      sandbox.env(),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ transcripts: 1, spawns: 2 });
    expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
  });
});
