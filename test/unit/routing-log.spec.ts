import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { insideLogDirs } from '../../src/routing/routing-log';

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
    const built = path.join(__dirname, '..', '..', 'dist', 'routing', 'routing-log.js');
    const script = (id: string) =>
      `const { appendLogLine } = require(${JSON.stringify(built)});` +
      `for (let i = 0; i < 300; i++) appendLogLine(${JSON.stringify(file)}, { writer: '${id}', i, pad: 'x'.repeat(2000) });`;
    await Promise.all(['a', 'b'].map((id) => new Promise((resolve) => spawn(process.execPath, ['-e', script(id)]).once('exit', resolve))));
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { writer: string });
    expect(lines).toHaveLength(600);
    expect(lines.filter((l) => l.writer === 'a')).toHaveLength(300);
    rmSync(dir, { recursive: true, force: true });
  });
});
