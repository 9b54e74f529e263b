import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type Env, type Json, MAIN, type Sandbox } from './gateway';

/**
 * `system1 serve-http` as a user (or a load balancer's supervisor) starts it, in a sandbox, on a port the
 * system picks; it resolves once the server prints where it listens.
 */
/** Env for a server whose garbage a test may collect on demand (see `collectGarbage`). */
export const COLLECTABLE_ENV = { NODE_OPTIONS: `--expose-gc --require ${join(__dirname, 'gc-on-signal.cjs')}` };

export class HttpServerProcess {
  private stderrText = '';
  private collections = 0;
  /** The exit code (null when killed by a signal), once the process has ended. */
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    /** `http://127.0.0.1:PORT/mcp` */
    readonly url: string,
    stderr: string,
  ) {
    this.stderrText = stderr;
    child.stderr!.on('data', (more: Buffer) => (this.stderrText += more.toString('utf8')));
    this.exited =
      child.exitCode !== null
        ? Promise.resolve(child.exitCode)
        : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(sandbox: Sandbox, env: Env, args: string[] = [], timeoutMs = 20_000): Promise<HttpServerProcess> {
    const child = spawn(process.execPath, [MAIN, 'serve-http', '--port', '0', ...args], {
      env: sandbox.env(env),
      cwd: sandbox.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`serve-http did not start:\n${stderr}`));
      }, timeoutMs);
      const onData = (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
        if (!match) return;
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        child.off('exit', onExit);
        resolve(new HttpServerProcess(child, match[1], stderr));
      };
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`serve-http exited with ${code}:\n${stderr}`));
      };
      child.stderr!.on('data', onData);
      child.once('exit', onExit);
    });
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** `/healthz`, `/readyz`, `/metrics` beside `/mcp`. */
  urlOf(path: string): string {
    return new URL(path, this.url).href;
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Waits for a log line: the server logs a request after answering it, so the caller may be faster. */
  async waitForStderr(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderrText) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    if (!pattern.test(this.stderrText)) throw new Error(`serve-http never logged ${pattern}:\n${this.stderrText}`);
    return this.stderrText;
  }

  /** A full collection in a server started with `COLLECTABLE_ENV`, awaited: heap figures then show what it retains. */
  async collectGarbage(): Promise<void> {
    const collection = ++this.collections;
    this.child.kill('SIGUSR2');
    await this.waitForStderr(new RegExp(`test-gc: collection ${collection} done`));
  }

  /** An MCP client connected over Streamable HTTP, as Claude Code or an agent connects. */
  async client(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'system1-e2e-http', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(this.url), { requestInit: { headers } }));
    return client;
  }

  /** Stops it as a supervisor would (SIGTERM) and waits for the exit. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** The structured object of a tool result, after the checks every result must pass (as over stdio). */
export function structured(result: unknown): Json {
  const { structuredContent, content, isError } = result as {
    structuredContent?: Json;
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  if (!structuredContent) throw new Error(`no structuredContent: ${JSON.stringify(result)}`);
  expect(content?.[0]?.type).toBe('text');
  expect(JSON.parse(content?.[0]?.text ?? 'null')).toStrictEqual(structuredContent);
  expect(isError === true).toBe(structuredContent.status === 'error');
  return structuredContent;
}

/** After a test: closes its clients, then kills its servers and waits for each to exit. */
export async function stopAll(servers: readonly HttpServerProcess[], clients: readonly Client[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  for (const server of servers) server.kill();
  await Promise.all(servers.map((server) => server.exited));
}
