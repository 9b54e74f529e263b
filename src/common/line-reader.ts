import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { refuseUnlessRegular } from './regular-file';

export interface LineReadOptions {
  /** Longer lines are skipped (and counted) without being held: memory stays near this, whatever the file. */
  maxLineBytes: number;
  /** Read only the file's last this many bytes, from the first line that starts in them. */
  tailBytes?: number;
}

/** Filled in as the lines are read. */
export interface LineReadStats {
  /** Lines over `maxLineBytes`, skipped. */
  skipped: number;
  /** Whether the file began before the part read (`tailBytes` was less than its size). */
  partial: boolean;
}

const CHUNK_BYTES = 256 * 1024;
const MIN_CHUNK_BYTES = 4 * 1024;
const NEWLINE = 0x0a;

/**
 * The lines of a regular file (a log, a transcript), read a chunk at a time rather than whole: a 1 GB log
 * read whole took 1.1 GB of memory, and a FIFO read whole waits for a writer. The file is opened with
 * O_NONBLOCK and refused (code ENOTREG) unless fstat says it is a regular file; ENOENT stays ENOENT. Lines
 * come without their newline; a last line without one is still a line. Lazy: the file is opened on the
 * first `next()`, and closed when the loop over it ends, however it ends.
 */
export function* readLinesSync(
  file: string,
  { maxLineBytes, tailBytes }: LineReadOptions,
  stats: LineReadStats = { skipped: 0, partial: false },
): Generator<string> {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = fstatSync(fd);
    refuseUnlessRegular(file, info, Number.POSITIVE_INFINITY);
    const size = info.size;
    stats.partial = tailBytes !== undefined && size > tailBytes;
    // From inside the file, start one byte early: the line there is ours only if that byte ends the one before.
    let position = stats.partial ? size - tailBytes! - 1 : 0;
    let skipping = stats.partial;
    // No bigger than the file (with room to see it grow): the skill picker reads a hundred small files per prompt.
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, size - position)));
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (let read; (read = readSync(fd, chunk, 0, chunk.length, position)) > 0; position += read) {
      const filled = chunk.subarray(0, read);
      for (let start = 0; start < read;) {
        const newline = filled.indexOf(NEWLINE, start);
        const end = newline === -1 ? read : newline;
        if (!skipping && pendingBytes + (end - start) > maxLineBytes) {
          skipping = true;
          stats.skipped += 1;
          pending = [];
          pendingBytes = 0;
        }
        if (newline === -1) {
          // The line goes on in the next chunk, which overwrites this one: keep a copy.
          if (!skipping) {
            pending.push(Buffer.from(filled.subarray(start, end)));
            pendingBytes += end - start;
          }
          break;
        }
        if (!skipping)
          yield pendingBytes === 0
            ? chunk.toString('utf8', start, end)
            : Buffer.concat([...pending, filled.subarray(start, end)]).toString('utf8');
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = newline + 1;
      }
    }
    if (!skipping && pendingBytes > 0) yield Buffer.concat(pending).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
