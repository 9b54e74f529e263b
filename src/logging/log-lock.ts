import { closeSync, constants, openSync, rmSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../config/ensure-dir';

/** How long an append or a rewrite waits for the lock: a rewrite of a large log takes well under this. */
export const LOG_LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a process that died holding it. */
export const LOG_LOCK_STALE_MS = 30_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `work` holding `<file>.lock` (created O_EXCL, removed after): every append to a JSONL log and every
 * rewrite of one (labels written in place) take it, so an append never lands in the old file between a
 * rewrite's read and its rename. Synchronous, as the appends are: the hook's budget is short and an append
 * waits only while a rewrite runs. Throws, naming the lock, when it stays held past LOG_LOCK_WAIT_MS.
 */
export function withLogLock<T>(file: string, work: () => T, waitMs = LOG_LOCK_WAIT_MS): T {
  ensurePrivateDir(path.dirname(file));
  const lock = `${file}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > LOG_LOCK_STALE_MS) rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw Object.assign(new Error(`${lock} is held by another process (a rewrite of the log); try again`), {
          code: 'ELOCKED',
        });
      else Atomics.wait(sleeper, 0, 0, 2);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}
