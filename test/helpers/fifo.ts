import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';
import { itUnless } from './skip-unless';

/** FIFOs need mkfifo: the suites that use them skip on Windows. */
export const fifoIt = itUnless(process.platform === 'win32' ? 'Windows has no mkfifo' : undefined);

/** Makes a FIFO named `name` in `dir` and returns its path. */
export function makeFifo(dir: string, name: string): string {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/**
 * A writer for a FIFO, in another process so it can run while a synchronous read blocks this one: if a
 * regression reads the FIFO again, the read gets `text` and an end of file and the test fails on what it
 * read instead of hanging. Stop it after the test (it waits for a reader that, when the fix works, never comes).
 */
export function feedFifo(file: string, text: string): { stop: () => void } {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', 'require("fs").writeFileSync(process.argv[1], process.argv[2])', file, text],
    {
      stdio: 'ignore',
    },
  );
  child.on('error', () => undefined);
  return { stop: () => void child.kill('SIGKILL') };
}
