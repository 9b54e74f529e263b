import { Injectable } from '@nestjs/common';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProcessRunner } from '../process/process-runner';
import { ProcessTable } from '../process/process-table';
import { RerankerHealth } from './reranker-health';
import type { RerankerHome } from './reranker-home';

/** The pid file `engine start` writes beside the launcher: the server it started, and with what. */
export interface PidRecord {
  pid: number;
  port: number;
  model: string;
  started_at: string;
}

export interface StartOptions {
  model: string;
  /** 0: any free port on 127.0.0.1. */
  port: number;
  device: string;
  /** serve.js's --shortlist K: the cross-encoder reads only a choice's K likeliest options by a word score. */
  shortlist?: number;
  /** serve.js's --max-candidate-tokens N: a candidate's description is cut to its first N tokens. */
  maxCandidateTokens?: number;
  env: NodeJS.ProcessEnv;
}

export type StartOutcome =
  /** The launcher started the server and it answers /health. */
  | { kind: 'started'; pid: number; port: number }
  /** The launcher stopped waiting for a large model; the server is still loading. */
  | { kind: 'loading'; pid: number; port: number }
  /** The server this command started earlier still runs. */
  | { kind: 'already-running'; record: PidRecord }
  /** Another reranker (a login entry's, say) already serves on the port: left alone. */
  | { kind: 'port-has-reranker'; port: number; model?: string };

export type StopOutcome =
  | { kind: 'stopped'; pid: number; forced: boolean }
  | { kind: 'not-running'; why: string }
  /** The pid file names a process that is not our server (the pid was reused): it is left alone. */
  | { kind: 'not-ours'; pid: number };

/** A start or stop that could not be done, said in one line (the launcher's own lines may follow). */
export class EngineProcessError extends Error {
  override readonly name: string = 'EngineProcessError';

  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/** How long a stopping server gets to close its connections and release the model before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts the reranker with its own launcher (engines/reranker/start.js: in the background, logging beside
 * itself, waiting until the model has loaded) and keeps the pid the launcher prints in a pid file; stops
 * exactly that server, after checking that the pid still belongs to it.
 */
@Injectable()
export class RerankerProcesses {
  constructor(
    private readonly runner: ProcessRunner,
    private readonly table: ProcessTable,
    private readonly health: RerankerHealth,
  ) {}

  /** The server this command started, when it still runs. */
  running(home: RerankerHome): PidRecord | undefined {
    const record = readPidFile(home);
    return record && this.isOurs(home, record.pid) ? record : undefined;
  }

  async start(home: RerankerHome, options: StartOptions): Promise<StartOutcome> {
    const running = this.running(home);
    if (running) return { kind: 'already-running', record: running };
    // The launcher waits on the port it was given, so "any free port" is picked here.
    const port = options.port === 0 ? await freePort() : options.port;
    const launched = await this.runner.run(
      process.execPath,
      [
        home.launcher,
        ...['--model', options.model, '--port', String(port), '--device', options.device],
        ...(options.shortlist === undefined ? [] : ['--shortlist', String(options.shortlist)]),
        ...(options.maxCandidateTokens === undefined
          ? []
          : ['--max-candidate-tokens', String(options.maxCandidateTokens)]),
      ],
      {
        cwd: home.dir,
        env: options.env,
        capture: true,
      },
    );
    const lines = `${launched.stdout}${launched.stderr}`.trimEnd().split('\n').filter(Boolean);
    if (launched.code !== 0)
      throw new EngineProcessError(
        `the launcher ${home.launcher} failed (exit ${launched.code ?? 'by a signal'}):`,
        lines,
      );
    if (/already in use/.test(launched.stdout)) {
      const health = await this.health.check(port);
      if (health.reranker) return { kind: 'port-has-reranker', port, model: health.model };
      throw new EngineProcessError(
        `port ${port} on 127.0.0.1 is taken by another program: pass --port N (0 picks a free one)`,
      );
    }
    const pid = Number(/\(pid (\d+)\)/.exec(launched.stdout)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0)
      throw new EngineProcessError('the launcher did not say the pid of the server it started:', lines);
    const record = { pid, port, model: options.model, started_at: new Date().toISOString() } satisfies PidRecord;
    writeFileSync(home.pidFile, `${JSON.stringify(record)}\n`);
    if (/still loading/.test(launched.stdout)) return { kind: 'loading', pid, port };
    if (!(await this.health.check(port)).reranker) {
      throw new EngineProcessError(
        `the server (pid ${pid}) does not answer http://127.0.0.1:${port}/health; see ${home.log}`,
      );
    }
    return { kind: 'started', pid, port };
  }

  async stop(home: RerankerHome): Promise<StopOutcome> {
    const record = readPidFile(home);
    if (!record)
      return {
        kind: 'not-running',
        why: `no server started by "system1 engine start reranker" (no pid file ${home.pidFile})`,
      };
    if (!this.table.isRunning(record.pid)) {
      rmSync(home.pidFile, { force: true });
      return { kind: 'not-running', why: `the server started as pid ${record.pid} has already exited` };
    }
    if (!this.isOurs(home, record.pid)) {
      rmSync(home.pidFile, { force: true });
      return { kind: 'not-ours', pid: record.pid };
    }
    this.table.signal(record.pid, 'SIGTERM');
    let forced = false;
    if (!(await this.exited(record.pid, STOP_GRACE_MS))) {
      this.table.signal(record.pid, 'SIGKILL');
      forced = true;
      if (!(await this.exited(record.pid, STOP_GRACE_MS)))
        throw new EngineProcessError(`the server (pid ${record.pid}) did not exit, even after SIGKILL`);
    }
    rmSync(home.pidFile, { force: true });
    return { kind: 'stopped', pid: record.pid, forced };
  }

  /** The pid runs our server: node with this install's serve.js (a reused pid runs something else). */
  private isOurs(home: RerankerHome, pid: number): boolean {
    return this.table.isRunning(pid) && (this.table.commandLine(pid)?.includes(home.server) ?? false);
  }

  private async exited(pid: number, withinMs: number): Promise<boolean> {
    for (let waited = 0; waited < withinMs; waited += 100) {
      if (!this.table.isRunning(pid)) return true;
      await sleep(100);
    }
    return !this.table.isRunning(pid);
  }
}

function readPidFile(home: RerankerHome): PidRecord | undefined {
  if (!existsSync(home.pidFile)) return undefined;
  try {
    const record = JSON.parse(readFileSync(home.pidFile, 'utf8')) as PidRecord;
    return Number.isSafeInteger(record.pid) && record.pid > 0 ? record : undefined;
  } catch {
    return undefined;
  }
}

/** A port free on 127.0.0.1 now (the OS picks it); the launcher binds it a moment later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
