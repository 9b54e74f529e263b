import { Injectable } from '@nestjs/common';
import { spawn } from 'node:child_process';

export interface RunResult {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program was not found. */
  missing: boolean;
}

export interface ProcessRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Collect the output (a launcher's lines), or pass both streams to this process's stderr (npm's). */
  capture: boolean;
}

/**
 * Runs a program to its end. On Windows npm is a .cmd shim, which Node starts only through a shell; the
 * arguments given here are fixed words or paths we made, never a user's text.
 */
@Injectable()
export class ProcessRunner {
  run(command: string, args: readonly string[], { cwd, env, capture }: ProcessRunOptions): Promise<RunResult> {
    return new Promise((resolve) => {
      const child = spawn(command, args, {
        cwd,
        env,
        stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 2, 2],
        shell: process.platform === 'win32' && command === 'npm',
        windowsHide: true,
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
      const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
      child.once('error', (error: NodeJS.ErrnoException) =>
        resolve({
          code: null,
          stdout: text(stdout),
          stderr: text(stderr) || error.message,
          missing: error.code === 'ENOENT',
        }),
      );
      child.once('close', (code) => resolve({ code, stdout: text(stdout), stderr: text(stderr), missing: false }));
    });
  }
}
