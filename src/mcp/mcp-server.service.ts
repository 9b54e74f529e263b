import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  CancelledNotificationSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { GATEWAY_VERSION } from '../common/version';
import { describeId, Parser } from './envelope';
import { gateRequests, RequestGate, RpcError } from './request-gate';
import { guardStdin, MAX_LINE_BYTES } from './stdin-guard';
import { MCP_TOOLS, McpTool } from './tools/mcp-tool';

const INSTRUCTIONS =
  'System-1 answers small multiple-choice judgement calls in milliseconds. Use system1_decide when a ' +
  'question has a few known options, and system1_ask for several typed questions about one state; when ' +
  'it abstains, reason it through yourself.';

/** The requests and notifications the SDK's Server serves besides tools/call, with the schemas it reads them by. */
const SDK_REQUESTS = new Map<string, Parser>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
]);
const SDK_NOTIFICATIONS = new Map<string, Parser>([
  ['notifications/initialized', InitializedNotificationSchema],
  ['notifications/cancelled', CancelledNotificationSchema],
  ['notifications/progress', ProgressNotificationSchema],
]);

/** Added to the longest a decision may take, when the server stops with answers in flight. */
const DRAIN_MARGIN_MS = 2000;

/** A server with the tools bound, connected to its transport behind the request gate. */
export interface ConnectedServer {
  server: Server;
  gate: RequestGate;
}

/**
 * The MCP server, over stdio here and over Streamable HTTP in src/http-server, both through `connect`. It
 * uses the SDK's low-level Server so the tools publish the DTO-generated JSON Schemas and invalid arguments
 * are answered in the gateway's own envelope, not as protocol errors.
 */
@Injectable()
export class McpServerService {
  private readonly logger = new Logger('Mcp');

  private readonly byName: Map<string, McpTool>;

  constructor(
    @Inject(MCP_TOOLS) private readonly tools: McpTool[],
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
  ) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** `requestId`: the id every call of this server is known by when its arguments give none (an HTTP request's). */
  createServer(requestId?: string): Server {
    const server = new Server(
      { name: 'system1-gateway', version: GATEWAY_VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: this.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema() })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const result = this.callTool(request.params.name, request.params.arguments ?? {}, extra.signal, requestId);
      if (!result) throw this.unknownTool(request.params.name);
      return result;
    });
    return server;
  }

  private unknownTool(name: string): RpcError {
    const known = [...this.byName.keys()].join(', ');
    const shown = name.length > 60 ? `${name.slice(0, 57)}...` : name;
    this.logger.warn(`tools/call of an unknown tool ${JSON.stringify(shown)}`);
    return new RpcError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(shown)}; tools: ${known}`);
  }

  /**
   * The tools bound to a new server, connected to `transport` behind the request gate: the one binding every
   * transport uses (stdio once per process, Streamable HTTP once per request, whose id its calls then carry).
   */
  async connect(transport: Transport, { onclose, requestId }: { onclose?: () => void; requestId?: string } = {}): Promise<ConnectedServer> {
    const server = this.createServer(requestId);
    server.onerror = (error) => this.logger.warn(`protocol error: ${error.message}`);
    if (onclose) server.onclose = onclose;
    await server.connect(transport);
    const gate = gateRequests(transport, {
      call: (name, args, signal) => this.callTool(name, args, signal, requestId) ?? Promise.reject(this.unknownTool(name)),
      requests: SDK_REQUESTS,
      notifications: SDK_NOTIFICATIONS,
      warn: (line) => this.logger.warn(line),
    });
    return { server, gate };
  }

  /** The longest one call may take (each engine of the chain gets timeout_s), and a margin to write the answer. */
  drainBoundMs(): number {
    const { timeout_s, fallback } = this.config.gateway;
    return timeout_s * 1000 * (1 + fallback.length) + DRAIN_MARGIN_MS;
  }

  /** Runs a tool and wraps its response object as a tool result; null for an unknown tool. */
  callTool(name: string, args: unknown, signal?: AbortSignal, requestId?: string): Promise<CallToolResult> | null {
    const tool = this.byName.get(name);
    if (!tool) return null;
    return tool.call(args, signal, requestId).then(
      ({ result, isError }) => ({ content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, isError }),
      (error: unknown) => {
        this.logger.error(`${tool.name} failed unexpectedly: ${error instanceof Error ? error.stack : String(error)}`);
        throw new RpcError(ErrorCode.InternalError, `${tool.name} failed unexpectedly; see the server log`);
      },
    );
  }

  /**
   * Serves on stdin/stdout until the client closes stdin (the answers still in flight are written first, for
   * at most the longest a call may take) or stdout (the server stops at once: nothing can be answered).
   */
  async serveStdio(): Promise<void> {
    let onclose!: () => void;
    const closed = new Promise<void>((resolve) => (onclose = resolve));
    // A long-lived server keeps answering: a stray rejection is logged, never allowed to end the process.
    process.on('unhandledRejection', (reason) => {
      this.logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
    });
    let stdoutGone = false;
    // Error replies carry `"id": null` (JSON-RPC's rule for an unreadable message), which the SDK's message
    // type cannot express: they are written as the same one-line JSON the transport writes.
    const stdin = guardStdin(
      process.stdin,
      (message) => {
        this.logger.warn(`answered ${describeId(message.id)} with ${message.error.code}: ${message.error.message}`);
        if (!stdoutGone) process.stdout.write(`${JSON.stringify(message)}\n`);
      },
      MAX_LINE_BYTES,
      (why) => this.logger.warn(why),
    );
    const { server, gate } = await this.connect(new StdioServerTransport(stdin), { onclose });

    let ending = false;
    const endOfInput = async () => {
      if (ending) return;
      ending = true;
      if (gate.inFlight > 0) {
        const boundMs = this.drainBoundMs();
        this.logger.log(`stdin closed: writing the ${gate.inFlight} answer(s) in flight first (for at most ${boundMs / 1000} s)`);
        if (!(await gate.settled(boundMs)) && !stdoutGone) this.logger.warn(`stdin closed: ${gate.inFlight} answer(s) still unwritten after ${boundMs / 1000} s, stopping`);
      }
      await server.close();
    };
    stdin.once('end', () => void endOfInput());
    stdin.once('close', () => void endOfInput());

    // A client that closes our stderr loses the log, not the server.
    process.stderr.on('error', () => undefined);
    // A client that closes our stdout can read nothing more: stop quietly instead of dying on EPIPE.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (stdoutGone) return;
      stdoutGone = true;
      this.logger.warn(`stdout is closed (${error.code ?? error.message}): the client has gone, stopping`);
      process.stdin.destroy();
      void server.close();
    });

    this.logger.log(`serving ${this.tools.length} tools on stdio (pid ${process.pid})`);
    await closed;
  }
}
