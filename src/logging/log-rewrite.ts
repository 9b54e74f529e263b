import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { LineCopy } from './line-copy';
import { LOG_READ_FLAGS, openRegular } from './log-file';
import { withLogLock } from './log-lock';

const CHUNK_BYTES = 1024 * 1024;
/** Tries before giving up when other rewrites keep landing while this one reads. */
const REWRITE_ATTEMPTS = 3;

export interface RewriteOptions {
  /** Longer lines are copied through as they are, never offered to `replace` nor held whole. */
  maxLineBytes: number;
}

/**
 * Rewrites a JSONL log in place, atomically: each line offered to `replace` (undefined keeps its bytes as
 * they are), the result written to a temp file beside the log with the log's mode, synced, and renamed over
 * it. The bulk is copied without the log's lock, so the hooks go on appending (a log can be gigabytes, and an
 * append waits for the lock only seconds); the lock is taken for the end alone: what was appended meanwhile
 * is copied too, and then the rename, so no append is lost. When another rewrite renamed its copy over the log
 * meanwhile, this one starts again from that copy rather than undo it. Returns how many lines were replaced.
 */
export function rewriteLogLines(
  file: string,
  replace: (line: string) => string | undefined,
  options: RewriteOptions,
): number {
  for (let attempt = 1; ; attempt++) {
    const replaced = rewriteOnce(file, replace, options);
    if (replaced !== undefined) return replaced;
    if (attempt === REWRITE_ATTEMPTS)
      throw Object.assign(
        new Error(`${file} was rewritten by another process ${REWRITE_ATTEMPTS} times while this one read it`),
        { code: 'EBUSY' },
      );
  }
}

/** One try: the count replaced, or undefined when another rewrite replaced the log first. */
function rewriteOnce(
  file: string,
  replace: (line: string) => string | undefined,
  { maxLineBytes }: RewriteOptions,
): number | undefined {
  const input = openRegular(file, LOG_READ_FLAGS);
  // Only a process of this pid can have left one: a crashed earlier one the pid was reused from.
  const temp = `${file}.${process.pid}.rewrite`;
  let output: number | undefined;
  try {
    const read = fstatSync(input);
    const mode = read.mode & 0o777;
    rmSync(temp, { force: true });
    output = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    fchmodSync(output, mode); // the umask may have narrowed it
    const copy = new LineCopy(output, replace, maxLineBytes);
    copyToEnd(input, copy);
    fsyncSync(output); // the bulk reaches the disk before the lock, which the hooks wait for, is taken
    const finished = withLogLock(file, () => {
      if (!isStill(file, read)) return false;
      copyToEnd(input, copy); // what the hooks appended while the bulk was copied
      copy.end();
      fsyncSync(output!);
      closeSync(output!);
      output = undefined;
      renameSync(temp, file);
      return true;
    });
    return finished ? copy.replaced : undefined;
  } finally {
    if (output !== undefined) closeSync(output);
    rmSync(temp, { force: true });
    closeSync(input);
  }
}

function copyToEnd(input: number, copy: LineCopy): void {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let read = readSync(input, chunk); read > 0; read = readSync(input, chunk)) copy.push(chunk.subarray(0, read));
}

/** Whether `file` is still the file that was opened (no other rewrite renamed its copy over it). */
function isStill(file: string, opened: Stats): boolean {
  const now = lstatSync(file, { throwIfNoEntry: false });
  return now !== undefined && now.ino === opened.ino && now.dev === opened.dev;
}
