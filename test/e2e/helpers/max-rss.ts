import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Env, MAIN } from './gateway';

/**
 * Memory is asserted from the child's own peak RSS, printed by a preload on exit (no timing, no polling of
 * /proc): Linux's VmHWM in KiB, else `process.resourceUsage().maxRSS` (which Linux keeps across execve, so it
 * may start at the size of the test process that forked the child: never lower than the child's own peak).
 */
const PRELOAD =
  "process.on('exit', () => { const fs = require('node:fs'); let kib; try { kib = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]; } catch { kib = process.resourceUsage().maxRSS; } fs.writeSync(2, '\\nmax-rss-kib=' + kib + '\\n'); });\n";

export interface MeasuredRun {
  /** null when the kill timer ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The child's peak RSS in MiB; NaN when it printed none (it was killed). */
  maxRssMiB: number;
}

/**
 * Runs `node dist/main.js <args>` with the peak-RSS preload and a kill timer, `stdin` written as it is (a
 * child that stops reading early closes the pipe: that is not an error here).
 */
export function runMeasured(
  dir: string,
  args: string[],
  env: Env,
  stdin = '',
  timeoutMs = 20_000,
): Promise<MeasuredRun> {
  const preload = path.join(dir, 'max-rss-preload.js');
  writeFileSync(preload, PRELOAD);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--require', preload, MAIN, ...args],
      { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const rss = /max-rss-kib=(\d+)/.exec(String(stderr));
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stdout: String(stdout),
          stderr: String(stderr).replace(/\n?max-rss-kib=\d+\n/, ''),
          maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN,
        });
      },
    );
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(stdin);
  });
}
