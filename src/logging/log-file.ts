import { closeSync, constants, fstatSync, openSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { refuseUnlessRegular } from '../common/regular-file';
import { ensurePrivateDir } from '../config/ensure-dir';

/**
 * O_NONBLOCK so a FIFO never blocks the open (a hook or the server would wait on it for a reader, past every
 * budget); only a regular file is then written to, so it has no effect on what we write.
 */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);
/** Logs hold prompts, questions and request ids: only the user may read them. */
const LOG_FILE_MODE = 0o600;

/**
 * Opens a log (the routing log, the shadow log, `[gateway] log_file`) for appending: a regular file only,
 * created 0600 in folders created 0700. Throws with an errno-style `code` (ENOTREG for a FIFO or a device,
 * naming which, as `readRegularFileSync` does).
 */
export function openLogForAppend(file: string): number {
  ensurePrivateDir(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(file, APPEND_FLAGS, LOG_FILE_MODE);
  } catch (error) {
    // A FIFO without a reader (or a socket) answers a non-blocking open for writing with ENXIO: say what it is.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') refuseSpecialFile(file);
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

function refuseSpecialFile(file: string): void {
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats) refuseUnlessRegular(file, stats, Number.POSITIVE_INFINITY);
}

/** Writes all of `text` to a log opened by {@link openLogForAppend}. */
export function writeToLog(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
}

/**
 * Appends `text` in one write: on a file opened for appending it lands whole at the end, so two processes
 * appending at once never interleave their lines.
 */
export function appendToLog(file: string, text: string): void {
  const fd = openLogForAppend(file);
  try {
    writeToLog(fd, text);
  } finally {
    closeSync(fd);
  }
}
