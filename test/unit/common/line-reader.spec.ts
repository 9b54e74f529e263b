import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readLinesSync, type LineReadStats } from '../../../src/common/line-reader';

/** The reader's chunk is 256 KiB: lines longer than that, or across its edge, exercise the carry-over. */
const CHUNK = 256 * 1024;

describe('readLinesSync', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-lines-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    const file = path.join(dir, 'log.jsonl');
    writeFileSync(file, text);
    return file;
  };
  const read = (file: string, options: { maxLineBytes: number; tailBytes?: number }) => {
    const stats: LineReadStats = { skipped: 0, partial: false };
    return { lines: [...readLinesSync(file, options, stats)], stats };
  };

  it('gives every line, whole across chunk edges and in UTF-8, the last one without its newline too', () => {
    const across = 'é'.repeat(CHUNK / 2); // 2 bytes each: ends exactly past the first chunk's edge
    const lines = ['first', across, '', 'x'.repeat(CHUNK * 2 + 7), 'last without newline'];
    expect(read(write(lines.join('\n')), { maxLineBytes: CHUNK * 4 })).toEqual({
      lines,
      stats: { skipped: 0, partial: false },
    });
  });

  it('skips the lines over the cap, counting them, and keeps the ones after', () => {
    const file = write(['short', 'y'.repeat(CHUNK * 3), 'z'.repeat(101), 'after'].join('\n') + '\n');
    expect(read(file, { maxLineBytes: 100 })).toEqual({
      lines: ['short', 'after'],
      stats: { skipped: 2, partial: false },
    });
  });

  it('reads only the tail, from the first line that starts in it, and says the file began before', () => {
    const file = write('aaaa\nbbbb\ncccc\n');
    expect(read(file, { maxLineBytes: 100, tailBytes: 10 })).toEqual({
      lines: ['bbbb', 'cccc'],
      stats: { skipped: 0, partial: true },
    });
    expect(read(file, { maxLineBytes: 100, tailBytes: 9 })).toEqual({
      lines: ['cccc'],
      stats: { skipped: 0, partial: true },
    });
    expect(read(file, { maxLineBytes: 100, tailBytes: 15 })).toEqual({
      lines: ['aaaa', 'bbbb', 'cccc'],
      stats: { skipped: 0, partial: false },
    });
  });

  it('refuses a folder, naming it, and leaves a missing file as ENOENT', () => {
    expect(() => [...readLinesSync(dir, { maxLineBytes: 100 })]).toThrow(`${dir} is a directory, not a regular file`);
    expect(() => [...readLinesSync(path.join(dir, 'missing'), { maxLineBytes: 100 })]).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
