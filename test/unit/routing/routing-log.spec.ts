import { spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { appendLogLine, insideLogDirs } from '../../../src/routing/routing-log';

describe('the routing log', () => {
  it('is opt-in per repository: the working directory in or below one of log_dirs', () => {
    expect(insideLogDirs('/home/dev/shop', ['/home/dev/shop'])).toBe(true);
    expect(insideLogDirs('/home/dev/shop/src/api', ['/home/dev/shop'])).toBe(true);
    expect(insideLogDirs('/home/dev/shop-other', ['/home/dev/shop'])).toBe(false);
    expect(insideLogDirs('/home/dev', ['/home/dev/shop'])).toBe(false);
    expect(insideLogDirs(undefined, ['/home/dev/shop'])).toBe(false);
    expect(insideLogDirs('/home/dev/shop', [])).toBe(false);
  });

  it('keeps every line whole when two sessions append at once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    const file = path.join(dir, 'routing.jsonl');
    // Two processes writing through the built appendLogLine, 300 lines each, long enough that a torn write would show.
    const built = path.join(__dirname, '..', '..', '..', 'dist', 'routing', 'routing-log.js');
    const script = (id: string) =>
      `const { appendLogLine } = require(${JSON.stringify(built)});` +
      `for (let i = 0; i < 300; i++) appendLogLine(${JSON.stringify(file)}, { writer: '${id}', i, pad: 'x'.repeat(2000) });`;
    await Promise.all(
      ['a', 'b'].map(
        (id) => new Promise((resolve) => spawn(process.execPath, ['-e', script(id)]).once('exit', resolve)),
      ),
    );
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { writer: string });
    expect(lines).toHaveLength(600);
    expect(lines.filter((l) => l.writer === 'a')).toHaveLength(300);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the log 0600 in a new 0700 folder: it holds prompt text', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    const umask = process.umask(0o022);
    try {
      const file = path.join(dir, 'logs', 'routing.jsonl');
      appendLogLine(file, { source: 'routing', prompt: 'Design the billing service' });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(umask);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a long prompt to a fixed length, saying how long it was', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'routing.jsonl');
      const prompt = 'Design the billing service. '.repeat(20_000); // 560,000 characters
      appendLogLine(file, { source: 'routing', prompt, tier: 'opus' });
      const entry = JSON.parse(readFileSync(file, 'utf8')) as { prompt: string; tier: string };
      expect(entry.tier).toBe('opus');
      expect(entry.prompt.length).toBeLessThan(70_000);
      expect(prompt.startsWith(entry.prompt.slice(0, 60_000))).toBe(true);
      expect(entry.prompt).toMatch(/\[truncated: 560,?000 characters in all\]$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes each entry on one line that no terminal acts on (DEL, C1 and U+2028 escaped too)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'routing.jsonl');
      const prompt = 'a\u001b[2J b\u009b31m c\u2028d\u2029e\u007f f\r\ng';
      appendLogLine(file, { source: 'routing', prompt });
      const text = readFileSync(file, 'utf8');
      expect(text.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(JSON.parse(text)).toEqual({ source: 'routing', prompt });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('appends nothing through a symbolic link: it names the link, and the file it names stays as it was', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      // A link planted where the log will be (a shared folder), aimed at a file of the user's that a shell runs.
      const elsewhere = path.join(dir, 'bashrc');
      writeFileSync(elsewhere, 'export EDITOR=vi\n');
      const file = path.join(dir, 'routing.jsonl');
      symlinkSync(elsewhere, file);
      expect(() => appendLogLine(file, { source: 'routing', prompt: '$(touch ~/pwned)' })).toThrow(
        `${file} is a symbolic link (to ${elsewhere}), not a regular file`,
      );
      expect(readFileSync(elsewhere, 'utf8')).toBe('export EDITOR=vi\n');
      expect(lstatSync(file).isSymbolicLink()).toBe(true);
      // A dangling one is not followed to create the file it names either.
      rmSync(elsewhere);
      expect(() => appendLogLine(file, { source: 'routing', prompt: 'p' })).toThrow('is a symbolic link');
      expect(() => lstatSync(elsewhere)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts an entry on a line of its own after a last line cut off at a crash, so readers still find it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'routing.jsonl');
      writeFileSync(file, '{"source":"routing","prompt_id":"p1"}\n{"source":"rout');
      appendLogLine(file, { source: 'routing', prompt_id: 'p2' });
      appendLogLine(file, { source: 'routing', prompt_id: 'p3' });
      expect(readFileSync(file, 'utf8').split('\n')).toEqual([
        '{"source":"routing","prompt_id":"p1"}',
        '{"source":"rout',
        '{"source":"routing","prompt_id":"p2"}',
        '{"source":"routing","prompt_id":"p3"}',
        '',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
