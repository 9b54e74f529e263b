import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import { refuseUnlessRegular, UnreadableFileError } from '../common/regular-file';
import { ensurePrivateDir } from '../config/ensure-dir';

/**
 * O_NONBLOCK so a FIFO never blocks the open (a hook or the server would wait on it for a reader, past every
 * budget); only a regular file is then written to, so it has no effect on what we write. O_NOFOLLOW: a log is
 * written where it is named, never through a symbolic link (one planted where the log will be would aim the
 * hooks' lines, or a rewrite, at any file the user can write).
 */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0) | NO_FOLLOW;
/** How a log is opened to be read (for a rewrite, or to see how it ends): never through a link, never waiting on a FIFO. */
export const LOG_READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | NO_FOLLOW;
/** Logs hold prompts, questions and request ids: only the user may read them. */
const LOG_FILE_MODE = 0o600;

/**
 * Opens a log (the routing log, the shadow log, `[gateway] log_file`) for appending: a regular file only,
 * created 0600 in folders created 0700. Throws with an errno-style `code` (ENOTREG for a FIFO, a device or a
 * symbolic link, naming which, as `readRegularFileSync` does).
 */
export function openLogForAppend(file: string): number {
  ensurePrivateDir(path.dirname(file));
  return openRegular(file, APPEND_FLAGS, LOG_FILE_MODE);
}

/**
 * `openSync` of a log (or of a file written like one) with flags holding O_NONBLOCK, and O_NOFOLLOW for a log:
 * the fd of a regular file, or a refusal naming what is there instead.
 */
export function openRegular(file: string, flags: number, mode?: number): number {
  let fd: number;
  try {
    fd = openSync(file, flags, mode);
  } catch (error) {
    refuseSpecialFile(file, error);
    throw error;
  }
  try {
    refuseUnlessRegular(file, fstatSync(fd), Number.POSITIVE_INFINITY);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * Names what an open met: a FIFO without a reader (or a socket) answers a non-blocking open for writing
 * with ENXIO, and O_NOFOLLOW a symbolic link with ELOOP.
 */
function refuseSpecialFile(file: string, error: unknown): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' && lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new UnreadableFileError(
      `${file} is a symbolic link (to ${readlinkSync(file)}), not a regular file: name the file itself`,
      'ENOTREG',
    );
  if (code !== 'ENXIO') return;
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats) refuseUnlessRegular(file, stats, Number.POSITIVE_INFINITY);
}

/** Writes all of `text` to a log opened by {@link openLogForAppend}. */
export function writeToLog(fd: number, text: string): void {
  writeAllBytes(fd, Buffer.from(text, 'utf8'));
}

/** Writes all of `bytes` (a write may take only part of them). */
export function writeAllBytes(fd: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
}

/**
 * Appends `text` in one write: on a file opened for appending it lands whole at the end, so two processes
 * appending at once never interleave their lines. After a last line cut off at a crash, the text starts on a
 * line of its own: glued onto that line, readers would skip it with it. Callers hold the log's lock, so no
 * other append lands between that look at the end and the write.
 */
export function appendToLog(file: string, text: string): void {
  const fd = openLogForAppend(file);
  try {
    const { size } = fstatSync(fd);
    writeToLog(fd, size > 0 && lastByte(file, size) !== NEWLINE ? `\n${text}` : text);
  } finally {
    closeSync(fd);
  }
}

const NEWLINE = 0x0a;

/** The byte at `size - 1`, read by a descriptor of its own (the append one is write-only). */
function lastByte(file: string, size: number): number {
  const fd = openRegular(file, LOG_READ_FLAGS);
  try {
    const byte = Buffer.alloc(1);
    return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : NEWLINE;
  } finally {
    closeSync(fd);
  }
}
