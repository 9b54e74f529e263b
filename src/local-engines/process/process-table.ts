import { Injectable } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * What the system says about a process by its pid: whether it runs and its command line, so that a pid file
 * left by a process that has since exited (its pid perhaps reused by another program) never gets that other
 * program killed.
 */
@Injectable()
export class ProcessTable {
  /** The pid names a live process (a zombie, exited but not yet reaped, does not count). */
  isRunning(pid: number): boolean {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
    if (process.platform !== 'linux') return true;
    try {
      // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }

  /** The process's command line (program and arguments, space-separated), or undefined when it cannot be read. */
  commandLine(pid: number): string | undefined {
    try {
      if (process.platform === 'linux')
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') || undefined;
      if (process.platform === 'win32') {
        const query = `(Get-CimInstance Win32_Process -Filter "ProcessId = ${pid}").CommandLine`;
        return (
          execFileSync('powershell', ['-NoProfile', '-NonInteractive', '-Command', query], {
            encoding: 'utf8',
            windowsHide: true,
          }).trim() || undefined
        );
      }
      return execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      return undefined;
    }
  }

  signal(pid: number, signal: NodeJS.Signals): void {
    process.kill(pid, signal);
  }
}
