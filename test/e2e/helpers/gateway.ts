/**
 * Shared helpers for the end-to-end suites: every server is the built `dist/main.js` started the way an MCP
 * client starts it (real stdio, real SDK client), each in its own sandbox of temp dirs so no test reads the
 * developer's config, pause file or logs, and none sees another's.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../../helpers/repo-json';
import { type Json, ToolCalls, type ToolReply } from '../../helpers/tool-reply';

const { isBuildCurrent } = require('../../../scripts/build-stamp') as { isBuildCurrent(root: string): boolean };

export { readJson } from '../../helpers/repo-json';
export { ROOT, type Json, type ToolReply };
export const MAIN = path.join(ROOT, 'dist', 'main.js');

export type Env = Record<string, string>;

/** Fails loudly (instead of with a spawn error per test) when the server was not built. */
export function requireBuild(): void {
  if (!existsSync(MAIN)) {
    throw new Error(`${MAIN} does not exist: build first (cd ${ROOT} && npm run build)`);
  }
  // A stale dist/ tests old code, and the installer would rebuild it under the suites still running.
  if (!isBuildCurrent(ROOT))
    throw new Error(`${path.join(ROOT, 'dist')} is older than the sources: build first (cd ${ROOT} && npm run build)`);
}

/** A fresh set of temp dirs standing in for HOME, XDG_CONFIG_HOME and the install dir. */
export class Sandbox {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'system1-e2e-'));
  readonly home = path.join(this.dir, 'home');
  readonly xdg = path.join(this.dir, 'xdg');
  readonly install = path.join(this.dir, 'install');

  constructor() {
    for (const dir of [this.home, this.xdg, this.install]) mkdirSync(dir, { recursive: true });
  }

  /** Writes a TOML file in the sandbox and returns its path (for SYSTEM1_CONFIG). */
  writeConfig(toml: string, name = 'config.toml'): string {
    const file = path.join(this.dir, name);
    writeFileSync(file, toml);
    return file;
  }

  /** The isolated base environment; `extra` adds SYSTEM1_* settings. Never inherits the caller's SYSTEM1_*. */
  env(extra: Env = {}): Env {
    return {
      PATH: process.env.PATH ?? '',
      HOME: this.home,
      XDG_CONFIG_HOME: this.xdg,
      SYSTEM1_INSTALL_DIR: this.install,
      ...extra,
    };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class GatewaySession extends ToolCalls {
  private readonly stderrChunks: string[] = [];

  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
    readonly sandbox: Sandbox,
    readonly env: Env,
  ) {
    super();
  }

  static async start(sandbox: Sandbox, env: Env): Promise<GatewaySession> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env,
      stderr: 'pipe',
      cwd: sandbox.dir, // clients start the server from any directory
    });
    const client = new Client({ name: 'system1-e2e', version: '0.0.0' });
    const session = new GatewaySession(client, transport, sandbox, env);
    transport.stderr?.on('data', (chunk: Buffer) => session.stderrChunks.push(chunk.toString('utf8')));
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new Error(`the server did not start: ${String(error)}\nstderr:\n${session.stderr()}`);
    }
    return session;
  }

  get pid(): number | null {
    return this.transport.pid;
  }

  stderr(): string {
    return this.stderrChunks.join('');
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

/**
 * Owns servers and sandboxes and disposes of them: `perTest()` after each test, `perFile()` once after the file.
 */
export class Resources {
  private sessions: GatewaySession[] = [];
  private sandboxes: Sandbox[] = [];

  sandbox(): Sandbox {
    const sandbox = new Sandbox();
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  /**
   * Starts a server in a fresh sandbox. `config` is written to a temp file named by SYSTEM1_CONFIG; `env`
   * adds SYSTEM1_* variables (it may use `{config}` in a value to refer to that file).
   */
  async server(options: { env?: Env; config?: string; sandbox?: Sandbox } = {}): Promise<GatewaySession> {
    const sandbox = options.sandbox ?? this.sandbox();
    const extra: Env = { ...(options.env ?? {}) };
    if (options.config !== undefined) extra.SYSTEM1_CONFIG = sandbox.writeConfig(options.config);
    const session = await GatewaySession.start(sandbox, sandbox.env(extra));
    this.sessions.push(session);
    return session;
  }

  async dispose(): Promise<void> {
    const sessions = this.sessions.splice(0);
    await Promise.all(sessions.map((session) => session.close()));
    for (const sandbox of this.sandboxes.splice(0)) sandbox.dispose();
  }

  static perTest(): Resources {
    const resources = new Resources();
    afterEach(() => resources.dispose());
    afterAll(() => resources.dispose());
    return resources;
  }

  static perFile(): Resources {
    const resources = new Resources();
    afterAll(() => resources.dispose());
    return resources;
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program with exactly `env`, without blocking the test's event loop, and gives its exit code (null
 * when it was killed) and output; `stdin`, when given, is sent as JSON (hook input).
 */
export function runCommand(
  command: string,
  args: string[],
  { env, cwd = tmpdir(), timeoutMs = 60_000, stdin }: { env: Env; cwd?: string; timeoutMs?: number; stdin?: unknown },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { env, timeout: timeoutMs, cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    if (stdin !== undefined) child.stdin!.end(JSON.stringify(stdin));
  });
}

/** Runs `node dist/main.js <args>` (see {@link runCommand}). */
export function runCli(args: string[], env: Env, timeoutMs = 60_000, stdin?: unknown): Promise<CliResult> {
  return runCommand(process.execPath, [MAIN, ...args], { env, timeoutMs, stdin });
}

/** The response fields every decide answer carries (latency values vary and are not compared). */
export const anyLatency = expect.any(Number);
