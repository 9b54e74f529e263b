/**
 * One built server (`node dist/main.js mcp`) driven over raw stdio lines, without the SDK client: what a
 * hostile or broken client writes, and exactly what comes back.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type Env, type Json, MAIN, type Sandbox } from './gateway';

export class RawServer {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private stdoutText = '';
  private stderrText = '';
  private readonly parsed: Json[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly sandbox: Sandbox,
    env: Env = {},
  ) {
    this.proc = spawn(process.execPath, [MAIN, 'mcp'], {
      env: sandbox.env({ SYSTEM1_PROVIDER: 'mock', ...env }),
      cwd: sandbox.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc.stdin.on('error', () => undefined); // the server may be gone when a test writes
    // 'close', not 'exit': by then everything the server wrote on stdout and stderr has been read.
    this.exited = new Promise((resolve) => this.proc.once('close', (code, signal) => resolve({ code, signal })));
    this.proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdoutText += chunk;
      const lines = this.stdoutText.split('\n');
      this.stdoutText = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') this.parsed.push(JSON.parse(line) as Json);
      this.wake();
    });
    this.proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
      this.wake();
    });
    this.proc.once('close', () => this.wake());
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Every message written on stdout so far, parsed. */
  messages(): Json[] {
    return this.parsed;
  }

  stderr(): string {
    return this.stderrText;
  }

  write(line: string): void {
    this.proc.stdin.write(`${line}\n`);
  }

  send(message: Json): void {
    this.write(JSON.stringify(message));
  }

  /** Resolves when `done()` holds, or rejects after `timeoutMs` (a bound for a hung server, not a timing check). */
  until(done: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}\nstdout:\n${JSON.stringify(this.parsed).slice(0, 4000)}\nstderr:\n${this.stderrText.slice(-4000)}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for the server to say it is serving (so that what is written next is read by the MCP layer). */
  ready(): Promise<void> {
    return this.until(() => /serving \d+ tools on stdio/.test(this.stderrText), 'the server to start');
  }

  answersTo(id: unknown): Json[] {
    return this.parsed.filter((message) => Object.is(message.id, id) || message.id === id);
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}

/** Waits for the process to exit, or reports that it is still running after `timeoutMs`. */
export async function exitOf(server: RawServer, timeoutMs = 20_000) {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    server.exited,
    new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), timeoutMs))),
  ]);
  clearTimeout(timer);
  return outcome;
}
