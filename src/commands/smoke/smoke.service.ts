import { Injectable } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { installDir, PACKAGE_ROOT } from '../../config/paths';
import { DeadlineExceeded, withDeadline } from '../../common/deadline';
import { TOOL_NAMES } from '../../mcp/tool-list';
import { GATEWAY_VERSION } from '../../common/version';

export type SmokeLayer = 'start' | 'handshake' | 'tools' | 'health' | 'decision';

export interface LayerVerdict {
  layer: SmokeLayer;
  ok: boolean;
  /** Plain words: what was seen, and on failure what to do about it. */
  detail: string;
}

export interface SmokeReport {
  ok: boolean;
  command: string[];
  layers: LayerVerdict[];
  health?: Record<string, unknown>;
  decision?: Record<string, unknown>;
  /**
   * How long the health call and the decision took, in whole milliseconds, as the client saw them (through the
   * gateway, the engine included): a decision slower than `[gateway] timeout_s` falls back.
   */
  latency_ms?: { health?: number; decision?: number };
  /** The server's last lines on stderr, when a layer broke after it started: usually the reason. */
  server_stderr?: string[];
}

export interface SmokeOptions {
  /** The server to start (SERVER_COMMAND or installedServerCommand's); the build smoke runs from by default. */
  command?: string[];
  question?: string;
  options?: string[];
  env: Record<string, string>;
  /** Per step, generous: a cold Node start on a busy machine takes seconds. */
  stepTimeoutMs?: number;
}

/** The server of the build smoke runs from. */
export const SERVER_COMMAND = [process.execPath, path.join(PACKAGE_ROOT, 'dist', 'main.js'), 'mcp'];

/** The copy the installer made, which is what clients are registered with; undefined when there is none. */
export function installedServerCommand(env: Record<string, string | undefined>): { command?: string[]; main: string } {
  const main = path.join(installDir(env), 'app', 'dist', 'main.js');
  return { main, command: existsSync(main) ? [process.execPath, main, 'mcp'] : undefined };
}

/** The report of an install that is not there: the first layer fails, naming where smoke looked. */
export function notInstalledReport(main: string): SmokeReport {
  const detail =
    `NOT INSTALLED: there is no ${main}; run the installer (node scripts/install.js from a clone), ` +
    'or set SYSTEM1_INSTALL_DIR to where it installed';
  return { ok: false, command: [process.execPath, main, 'mcp'], layers: [{ layer: 'start', ok: false, detail }] };
}

/**
 * Launches the gateway exactly as an MCP client does (same command, same environment) and checks one
 * layer at a time, stopping at the first that fails, so the verdict says where the problem is.
 */
@Injectable()
export class SmokeService {
  async run({
    command: server = SERVER_COMMAND,
    question,
    options,
    env,
    stepTimeoutMs = 30_000,
  }: SmokeOptions): Promise<SmokeReport> {
    const [command, ...args] = server;
    const report: SmokeReport = { ok: false, command: server, layers: [] };
    const verdict = (layer: SmokeLayer, ok: boolean, detail: string) => {
      report.layers.push({ layer, ok, detail });
      return ok;
    };
    const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
    const serverLog: string[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => serverLog.push(chunk.toString('utf8')));
    const keepServerStderr = () => {
      const lines = lastLines(serverLog.join(''), 8);
      if (lines.length > 0) report.server_stderr = lines;
    };
    const client = new Client({ name: 'system1-smoke', version: GATEWAY_VERSION });
    const step = <T>(work: () => Promise<T>) => withDeadline(() => work(), stepTimeoutMs);
    const timed = async <T>(layer: 'health' | 'decision', work: () => Promise<T>) => {
      const started = performance.now();
      const result = await step(work);
      const ms = Math.round(performance.now() - started);
      report.latency_ms = { ...report.latency_ms, [layer]: ms };
      return { result, took: `in ${ms} ms` };
    };

    try {
      try {
        await step(() => client.connect(transport));
      } catch (error) {
        if (transport.pid === null) {
          verdict(
            'start',
            false,
            `the command does not start: ${describe(error)}. Is Node.js on PATH and dist/ built (npm run build)?`,
          );
        } else {
          verdict('start', true, `started (pid ${transport.pid})`);
          verdict('handshake', false, `HANDSHAKE FAILED: ${describe(error)}`);
          keepServerStderr();
        }
        return report;
      }
      verdict('start', true, `started (pid ${transport.pid})`);
      const server = client.getServerVersion();
      verdict('handshake', true, `${server?.name} ${server?.version} answered initialize`);

      const { tools } = await step(() => client.listTools());
      const missing = TOOL_NAMES.filter((name) => !tools.some((tool) => tool.name === name));
      if (
        !verdict(
          'tools',
          missing.length === 0,
          missing.length ? `missing tools: ${missing.join(', ')}` : tools.map((t) => t.name).join(', '),
        )
      ) {
        return report;
      }

      const checked = await timed('health', () => client.callTool({ name: 'system1_health', arguments: {} }));
      const health = structured(checked.result);
      report.health = health;
      const healthy = health.status === 'ok' || health.status === 'degraded';
      if (!verdict('health', healthy, `${describeHealth(health)} (answered ${checked.took})`)) return report;

      if (question !== undefined) {
        const args = {
          question,
          ...(options && options.length > 0 ? { options } : {}),
          request_id: `smoke-${process.pid}`,
        };
        const decided = await timed('decision', () => client.callTool({ name: 'system1_decide', arguments: args }));
        const decision = structured(decided.result);
        report.decision = decision;
        verdict('decision', decision.status !== 'error', `${describeDecision(decision)}, ${decided.took}`);
      }
      report.ok = report.layers.every((layer) => layer.ok);
      return report;
    } catch (error) {
      // The layer being checked when it broke is the first without a verdict.
      verdict(ORDER[report.layers.length] ?? 'decision', false, describe(error));
      keepServerStderr();
      return report;
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

const ORDER: SmokeLayer[] = ['start', 'handshake', 'tools', 'health', 'decision'];

function structured(result: unknown): Record<string, unknown> {
  const content = (result as { structuredContent?: Record<string, unknown> }).structuredContent;
  if (!content) throw new Error('the tool result has no structuredContent');
  return content;
}

function describeHealth(health: Record<string, unknown>): string {
  const providers = (health.providers as { name: string; role: string; ok: boolean; detail: string }[]) ?? [];
  const probes = providers.map((p) => `${p.name} (${p.role}) ${p.ok ? 'up' : 'DOWN'}: ${p.detail}`).join('; ');
  const errors = (health.config_errors as { message: string }[]) ?? [];
  // A warning does not fail the layer (the mock is a fine engine for trying the plumbing), but it is said first.
  const warned = ((health.warnings as string[] | undefined) ?? []).map((warning) => `WARNING: ${warning}. `).join('');
  switch (health.status) {
    case 'ok':
      return `ok; ${warned}${probes}`;
    case 'degraded':
      return `degraded: the primary is down and a fallback is up; fix the primary. ${warned}${probes}`;
    case 'paused':
      return 'paused: System-1 is switched off; "system1 toggle on" resumes it';
    default:
      return errors.length > 0
        ? `down: the config is broken: ${errors.map((e) => e.message).join('; ')}`
        : `down: no provider answers its health check. ${probes}`;
  }
}

function describeDecision(decision: Record<string, unknown>): string {
  const error = decision.error as { code: string; message: string } | null;
  if (decision.status === 'error') return `error ${error?.code}: ${error?.message}`;
  if (decision.status === 'abstained')
    return `abstained (${String(decision.rationale)}); the engine answered but below the threshold`;
  return (
    `decided ${JSON.stringify(decision.decision)} with confidence ${String(decision.confidence)} ` +
    `from ${String(decision.provider)}`
  );
}

function describe(error: unknown): string {
  if (error instanceof DeadlineExceeded) return 'no answer in time';
  return error instanceof Error ? error.message : String(error);
}

function lastLines(text: string, count: number): string[] {
  const trimmed = text.trimEnd();
  return trimmed ? trimmed.split('\n').slice(-count) : [];
}
