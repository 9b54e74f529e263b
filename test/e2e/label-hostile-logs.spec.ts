/**
 * `system1 label` on routing logs a heavy user, a crash or a careless setup leaves: hundreds of long prompts
 * waiting or labelled (more than one string can hold once printed or exported), a log that ends in 128 MiB
 * of NUL bytes without a newline (a crash on some file systems), an export named at a FIFO, and a log that is
 * a symbolic link. Each ends with an answer or a message naming the problem, its peak memory bounded, and
 * nothing written through the link. Every child runs under a kill timer: a regression that blocks comes back
 * killed (code null), never hangs the suite.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import { type Json, MAIN, requireBuild, Resources, type Sandbox } from './helpers/gateway';
import { runMeasured } from './helpers/max-rss';

const resources = Resources.perTest();
/** Peak RSS `label` may reach: start-up is about 110 MiB; before streaming, these logs took 380 MiB to 960 MiB. */
const RSS_BOUND_MIB = 250;
const MIB = 1024 * 1024;
const LABELS = { read_only: true, design: false, review: false, specified: true, tier: 'haiku' };

beforeAll(() => requireBuild());

/** A prompt as a pasted build log makes one: about 60 KB, just under what the hook logs of a prompt. */
const longPrompt = (i: number) => `Task ${i}: why does the build fail?\n${'pasted build output line\n'.repeat(2500)}`;
const routed = (i: number, extra: object = {}) =>
  JSON.stringify({ source: 'routing', prompt_id: `p${i}`, prompt: longPrompt(i), tier: 'sonnet', ...extra });

function logOf(sandbox: Sandbox, lines: string[]): string {
  const log = path.join(sandbox.dir, 'routing.jsonl');
  writeFileSync(log, lines.join('\n') + '\n');
  return log;
}

function labelsFile(sandbox: Sandbox, ids: string[]): string {
  const file = path.join(sandbox.dir, 'labels.jsonl');
  writeFileSync(file, ids.map((id) => JSON.stringify({ id, ...LABELS })).join('\n') + '\n');
  return file;
}

it('lists 800 waiting prompts of 60 KB each, every one, in bounded memory', async () => {
  const sandbox = resources.sandbox();
  const log = logOf(
    sandbox,
    Array.from({ length: 800 }, (_, i) => routed(i)),
  );
  const result = await runMeasured(sandbox.dir, ['label', 'list', '--log', log], sandbox.env());
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const list = JSON.parse(result.stdout) as Json;
  expect(list.waiting).toBe(800);
  expect(list.entries.map((entry: Json) => entry.id)).toEqual(Array.from({ length: 800 }, (_, i) => `p${i}`));
  expect(list.entries[799].prompt).toBe(longPrompt(799));
  expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
});

it('exports 400 labelled prompts of 60 KB each (2,000 rows, 130 MB) in bounded memory, cutting an older file', async () => {
  const sandbox = resources.sandbox();
  const log = logOf(
    sandbox,
    Array.from({ length: 400 }, (_, i) => routed(i, { labels: LABELS })),
  );
  const out = path.join(sandbox.dir, 'labelled.jsonl');
  writeFileSync(out, 'x'.repeat(200 * MIB)); // an older, longer export: nothing of it may stay behind
  const result = await runMeasured(sandbox.dir, ['label', 'export', out, '--log', log], sandbox.env());
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`Exported 2000 calibration rows from 400 labelled prompts to ${out}`);
  const rows = readFileSync(out, 'utf8').trimEnd().split('\n');
  expect(rows).toHaveLength(2000);
  expect(JSON.parse(rows[1999])).toMatchObject({ context: { prompt: longPrompt(399) }, label: 'haiku' });
  expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
});

it('applies labels to a log ending in 128 MiB of NUL bytes without a newline, keeping them, in bounded memory', async () => {
  const sandbox = resources.sandbox();
  const log = path.join(sandbox.dir, 'routing.jsonl');
  const head = `${JSON.stringify({ source: 'routing', prompt_id: 'p1', prompt: 'Design it', tier: 'opus' })}\n`;
  const fd = openSync(log, 'w');
  writeSync(fd, head);
  ftruncateSync(fd, 128 * MIB); // the rest reads as NUL bytes: one line, never ended
  closeSync(fd);
  const result = await runMeasured(
    sandbox.dir,
    ['label', 'apply', labelsFile(sandbox, ['p1']), '--log', log],
    sandbox.env(),
  );
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain('Labelled 1 routed prompts');
  const labelledHead = `${JSON.stringify({ source: 'routing', prompt_id: 'p1', prompt: 'Design it', tier: 'opus', labels: LABELS })}\n`;
  expect(statSync(log).size).toBe(128 * MIB + labelledHead.length - head.length);
  const start = readFileSync(log).subarray(0, labelledHead.length + 4096);
  expect(start.toString('utf8', 0, labelledHead.length)).toBe(labelledHead);
  expect(start.subarray(labelledHead.length).every((byte) => byte === 0)).toBe(true);
  expect(readdirSync(sandbox.dir).filter((name) => name.startsWith('routing.jsonl'))).toEqual(['routing.jsonl']);
  expect(result.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
});

it('names a FIFO given as the export file and exits 1, instead of waiting for a reader', async () => {
  const sandbox = resources.sandbox();
  const log = logOf(sandbox, [routed(1, { labels: LABELS })]);
  const fifo = path.join(sandbox.dir, 'labelled.jsonl');
  execFileSync('mkfifo', [fifo]);
  const result = await runMeasured(sandbox.dir, ['label', 'export', fifo, '--log', log], sandbox.env());
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toContain(`system1 label: cannot write ${fifo} (${fifo} is a FIFO, not a regular file)`);
});

it('lists through a log that is a symbolic link but writes nothing through it, naming the file to use', async () => {
  const sandbox = resources.sandbox();
  const elsewhere = path.join(sandbox.dir, 'elsewhere.jsonl');
  writeFileSync(elsewhere, `${JSON.stringify({ source: 'routing', prompt_id: 'p1', prompt: 'x' })}\n`);
  const before = readFileSync(elsewhere);
  const log = path.join(sandbox.dir, 'routing.jsonl');
  symlinkSync(elsewhere, log);
  const listed = await runMeasured(sandbox.dir, ['label', 'list', '--log', log], sandbox.env());
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as Json).waiting).toBe(1);
  const applied = await runMeasured(
    sandbox.dir,
    ['label', 'apply', labelsFile(sandbox, ['p1']), '--log', log],
    sandbox.env(),
  );
  expect(applied).toMatchObject({ code: 1, stdout: '' });
  expect(applied.stderr).toContain(
    `system1 label: cannot rewrite ${log} (${log} is a symbolic link (to ${elsewhere}), not a regular file: name the file itself): nothing written`,
  );
  expect(lstatSync(log).isSymbolicLink()).toBe(true);
  expect(readFileSync(elsewhere).equals(before)).toBe(true);
});

it('names the log when its folder is a link to /dev/zero, and exits 1 for list and apply alike', async () => {
  const sandbox = resources.sandbox();
  const folder = path.join(sandbox.dir, 'logs');
  symlinkSync('/dev/zero', folder);
  const log = path.join(folder, 'routing.jsonl');
  const labels = labelsFile(sandbox, ['p1']);
  for (const args of [['list'], ['apply', labels]]) {
    const result = await runMeasured(sandbox.dir, ['label', ...args, '--log', log], sandbox.env());
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(`system1 label: cannot read the routing log: ${log} (ENOTDIR)\n`);
  }
});

it('stops quietly when its reader goes away (`label list | head`): no EPIPE stack, exit 0', async () => {
  const sandbox = resources.sandbox();
  const log = logOf(
    sandbox,
    Array.from({ length: 200 }, (_, i) => routed(i)),
  );
  const child = spawn(process.execPath, [MAIN, 'label', 'list', '--log', log], {
    env: sandbox.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // `head -c 100`: read the first chunk, then close the pipe
  child.stdout.once('data', () => child.stdout.destroy());
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise((resolve) => child.on('close', (exit) => resolve(exit)));
  clearTimeout(timer);
  expect(stderr).toBe('');
  expect(code).toBe(0);
});

it('exports rows that no terminal acts on (C1 controls and U+2028 escaped), their values kept', async () => {
  const sandbox = resources.sandbox();
  const prompt = 'Review it\u009b2J\u001b]0;pwned\u0007 and\u2028this';
  const log = logOf(sandbox, [JSON.stringify({ source: 'routing', prompt_id: 'p1', prompt, labels: LABELS })]);
  const out = path.join(sandbox.dir, 'labelled.jsonl');
  const result = await runMeasured(sandbox.dir, ['label', 'export', out, '--log', log], sandbox.env());
  expect(result.code).toBe(0);
  const text = readFileSync(out, 'utf8');
  expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  expect(
    text
      .trimEnd()
      .split('\n')
      .map((row) => (JSON.parse(row) as Json).context.prompt),
  ).toEqual(Array(5).fill(prompt));
});
