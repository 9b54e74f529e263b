import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { refuseUnlessRegular } from '../common/regular-file';
import { writeToLog } from './log-file';
import { withLogLock } from './log-lock';

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
const LINE_END = Buffer.from([NEWLINE]);

/**
 * Rewrites a JSONL log in place, atomically: each line offered to `replace` (undefined keeps its bytes as
 * they are), the result written to a temp file beside the log with the log's mode, synced, and renamed over
 * it, all under the log's lock (appends wait for it, so none is lost). Streams a chunk at a time: a log can
 * be gigabytes. Returns how many lines were replaced.
 */
export function rewriteLogLines(file: string, replace: (line: string) => string | undefined): number {
  return withLogLock(file, () => {
    const input = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const temp = `${file}.${process.pid}.rewrite`;
    let output: number | undefined;
    let replaced = 0;
    try {
      const stats = fstatSync(input);
      refuseUnlessRegular(file, stats, Number.POSITIVE_INFINITY);
      output = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, stats.mode & 0o777);
      fchmodSync(output, stats.mode & 0o777); // the umask may have narrowed it
      const emit = (bytes: Buffer) => {
        const replacement = replace(bytes.toString('utf8'));
        if (replacement === undefined) return writeBytes(output!, Buffer.concat([bytes, LINE_END]));
        replaced += 1;
        writeToLog(output!, `${replacement}\n`);
      };
      let pending = Buffer.alloc(0);
      const chunk = Buffer.alloc(CHUNK_BYTES);
      for (let read = readSync(input, chunk); read > 0; read = readSync(input, chunk)) {
        let data = Buffer.concat([pending, chunk.subarray(0, read)]);
        for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE)) {
          emit(data.subarray(0, end));
          data = data.subarray(end + 1);
        }
        pending = Buffer.from(data);
      }
      // A last line cut off at a crash keeps its bytes, without a newline made up for it.
      if (pending.length > 0) writeBytes(output, pending);
      fsyncSync(output);
      closeSync(output);
      output = undefined;
      renameSync(temp, file);
      return replaced;
    } catch (error) {
      if (output !== undefined) closeSync(output);
      rmSync(temp, { force: true });
      throw error;
    } finally {
      closeSync(input);
    }
  });
}

/** Kept lines are copied as bytes, so whatever they hold (even invalid UTF-8) stays as it was. */
function writeBytes(fd: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
}
