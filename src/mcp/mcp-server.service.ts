import { Inject, Injectable, Logger } from '@nestjs/common';
import { CallToolResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { clip } from '../common/clip';
import { logStrayRejections } from '../logging/process-failures';
import { GATEWAY_VERSION } from '../common/version';
import { short } from './envelope';
import { type DrainableTransport, GatedTransport } from './gated.transport';
import { StdioLineTransport } from './stdio-line.transport';
import { sentArguments } from './tool-call.guard';
import { ToolCatalog } from './tool-catalog';
import { type McpTool, TOOL_HANDLERS } from './tools/mcp-tool';

const INSTRUCTIONS =
  'System-1 answers small multiple-choice judgement calls in milliseconds. Use system1_decide when a ' +
  'question has a few known options, and system1_ask for several typed questions about one state; when ' +
  'it abstains, reason it through yourself.';

/** Added to the longest a decision may take, when the server stops with answers in flight. */
const DRAIN_MARGIN_MS = 2000;

/** The tool list never changes while a server runs: a client may keep it for this long (2026-07-28's ttlMs). */
const TOOL_LIST_TTL_MS = 60 * 60 * 1000;

/**
 * The MCP server of both eras (2026-07-28 and the 2025 revisions), over stdio here and over HTTP in
 * src/http-server, both from `factory`. It uses the SDK's low-level Server so the tools publish the
 * DTO-generated JSON Schemas and invalid arguments are answered in the gateway's own envelope, not as
 * protocol errors. What the factory builds per instance is only the SDK's Server and two handlers bound
 * to tools built once per process.
 */
@Injectable()
export class McpServerService {
  private readonly logger = new Logger('Mcp');

  /**
   * One validator for every instance (the SDK would build an Ajv per
   * Server); used only for elicitation, which this server never asks for.
   */
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(
    @Inject(TOOL_HANDLERS) private readonly byName: ReadonlyMap<string, McpTool>,
    private readonly catalog: ToolCatalog,
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
  ) {}

  /**
   * A server with the tools bound, for one stdio connection or one HTTP request. `requestId`: the id every
   * call of this server is known by when its arguments give none (an HTTP request's).
   */
  createServer(requestId?: string): Server {
    const server = new Server(
      { name: 'system1-gateway', version: GATEWAY_VERSION },
      {
        capabilities: { tools: {} },
        instructions: INSTRUCTIONS,
        jsonSchemaValidator: this.validator,
        cacheHints: { 'tools/list': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'public' } },
      },
    );
    server.setRequestHandler('tools/list', () => this.catalog.toolList());
    server.setRequestHandler('tools/call', (request, ctx) => {
      const result = this.callTool(
        request.params.name,
        sentArguments(request.params.arguments),
        ctx.mcpReq.signal,
        requestId,
      );
      if (!result) throw this.unknownTool(request.params.name);
      return result;
    });
    // The SDK's words may repeat what the client sent (a method, a revision) at any length: one short line.
    server.onerror = (error) => this.logger.warn(`protocol error: ${short(error.message)}`);
    return server;
  }

  private unknownTool(name: string): ProtocolError {
    const known = [...this.byName.keys()].join(', ');
    const shown = clip(name, 60);
    this.logger.warn(`tools/call of an unknown tool ${JSON.stringify(shown)}`);
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${JSON.stringify(shown)}; tools: ${known}`);
  }

  /**
   * The longest one call may take (each engine of the chain gets timeout_s, each replica of a pool too, and a
   * wait for a cooling engine as long again), and a margin to write the answer.
   */
  drainBoundMs(): number {
    const { timeout_s, wait_for_recovery } = this.config.gateway;
    const engines = this.registry.chain().reduce((sum, member) => sum + (member.pool?.length ?? 1), 0);
    return timeout_s * 1000 * (engines + (wait_for_recovery ? 1 : 0)) + DRAIN_MARGIN_MS;
  }

  /** Runs a tool and wraps its response object as a tool result; null for an unknown tool. */
  callTool(name: string, args: unknown, signal?: AbortSignal, requestId?: string): Promise<CallToolResult> | null {
    const tool = this.byName.get(name);
    if (!tool) return null;
    return tool.call(args, signal, requestId).then(
      ({ result, isError }) => ({
        content: [{ type: 'text', text: JSON.stringify(result) }],
        structuredContent: result,
        isError,
      }),
      (error: unknown) => {
        this.logger.error(`${name} failed unexpectedly: ${error instanceof Error ? error.stack : String(error)}`);
        throw new ProtocolError(ProtocolErrorCode.InternalError, `${name} failed unexpectedly; see the server log`);
      },
    );
  }

  /**
   * Serves both eras on stdin/stdout with the SDK's stdio entry until the client closes stdin (the answers
   * still in flight are written first, for at most the longest a call may take) or stdout (the server stops
   * at once: nothing can be answered).
   */
  async serveStdio(): Promise<void> {
    logStrayRejections((line) => this.logger.error(line));
    // A client that closes our stderr loses the log, not the server.
    process.stderr.on('error', () => undefined);
    const lines = new StdioLineTransport(process.stdin, process.stdout, { warn: (line) => this.logger.warn(line) });
    const gate = this.serveConnection(lines);
    this.logger.log(`serving ${this.byName.size} tools on stdio (pid ${process.pid})`);
    await gate.closed;
  }

  /**
   * Serves one connection of either era on `transport` (stdio's lines, or a test's in-memory pair) behind the
   * gate every message passes first. The gate's `closed` resolves once the connection is over.
   */
  serveConnection(transport: DrainableTransport): GatedTransport {
    const warn = (line: string) => this.logger.warn(line);
    const gate = new GatedTransport(transport, {
      warn,
      log: (line) => this.logger.log(line),
      drainBoundMs: this.drainBoundMs(),
    });
    serveStdio(() => this.createServer(), {
      transport: gate,
      onerror: (error) => warn(`protocol error: ${short(error.message)}`),
    });
    return gate;
  }
}
