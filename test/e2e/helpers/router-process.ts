import { type ChildProcess, spawn } from 'node:child_process';
import { type Env, MAIN, type Sandbox } from './gateway';

/** `system1 serve-openai` as a user starts it, in a sandbox; resolves once it says where it listens. */
export class RouterProcess {
  private stderrText = '';

  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
  ) {}

  static start(sandbox: Sandbox, args: string[], env: Env, timeoutMs = 15_000): Promise<RouterProcess> {
    const child = spawn(process.execPath, [MAIN, 'serve-openai', '--port', '0', ...args], {
      env: sandbox.env(env),
      cwd: sandbox.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`serve-openai did not start:\n${stderr}`));
      }, timeoutMs);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /listening on (http:\/\/\S+\/v1)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          const router = new RouterProcess(child, match[1]);
          router.stderrText = stderr;
          child.stderr!.removeAllListeners('data');
          child.stderr!.on('data', (more: Buffer) => (router.stderrText += more.toString('utf8')));
          resolve(router);
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve-openai exited with ${code}:\n${stderr}`));
      });
    });
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Waits for a log line: the router logs a request after answering it, so the caller may be faster. */
  async waitForStderr(pattern: RegExp | string, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    const found = () =>
      typeof pattern === 'string' ? this.stderrText.includes(pattern) : pattern.test(this.stderrText);
    while (!found() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.stderrText;
  }

  /** Stops it as Ctrl-C would and waits for the exit. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    return new Promise((resolve) => {
      this.child.once('close', (code) => resolve(code));
      this.child.kill('SIGTERM');
    });
  }
}
