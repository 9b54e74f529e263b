import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { formatBytes } from './byte-count';

/**
 * Reads a file the gateway was told about (config, fits, logs), but only a regular file and only up to a cap.
 * A FIFO, /dev/zero or a socket named by a variable would otherwise block or flood a synchronous read past
 * every time budget. Opening with O_NONBLOCK lets us look at the file before we wait on it: a FIFO with no
 * writer opens at once and fstat names it. Errors carry an errno-style `code` (ENOENT stays ENOENT) so callers
 * can keep treating a missing file as "none".
 */
export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'EFBIG',
  ) {
    super(message);
  }
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Size caps by kind, in bytes: generous for what each file holds, small against a runaway. */
export const FILE_CAPS = {
  config: 1024 * 1024,
  fits: 8 * 1024 * 1024,
  log: 256 * 1024 * 1024,
  data: 256 * 1024 * 1024,
} as const;

export function readRegularFileSync(file: string, maxBytes: number): string {
  const fd = openSync(file, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    refuseUnlessRegular(file, stats, maxBytes);
    // Read to end rather than trusting st_size (the file may grow), but never past the cap.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) throw tooBig(file, total, maxBytes);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export function refuseUnlessRegular(file: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) throw new UnreadableFileError(`${file} is ${fileKind(stats)}, not a regular file`, 'ENOTREG');
  if (stats.size > maxBytes) throw tooBig(file, stats.size, maxBytes);
}

const tooBig = (file: string, size: number, maxBytes: number) =>
  new UnreadableFileError(
    `${file} is over the ${formatBytes(maxBytes)} cap (${size > maxBytes ? `${formatBytes(size)}+` : 'growing'})`,
    'EFBIG',
  );

function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'a special file';
}

/** The `code` of a read failure, for messages: ENOENT, EACCES, ENOTREG, EFBIG … */
export const readFailureCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? 'error';

/** A short reason for a read failure, naming the file kind or the cap when that was it. */
export const readFailureReason = (error: unknown): string =>
  error instanceof UnreadableFileError ? error.message : readFailureCode(error);
