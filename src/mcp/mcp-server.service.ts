import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_VERSION } from '../common/version';
import { answerMisshapenToolCalls } from './misshapen-call.guard';
import { guardStdin } from './stdin-guard';
import { MCP_TOOLS, McpTool } from './tools/mcp-tool';

const INSTRUCTIONS =
  'System-1 answers small multiple-choice judgement calls in milliseconds. Use system1_decide when a ' +
  'question has a few known options, and system1_ask for several typed questions about one state; when ' +
  'it abstains, reason it through yourself.';

/**
 * The MCP server over stdio. It uses the SDK's low-level Server so the tools publish the DTO-generated JSON
 * Schemas and invalid arguments are answered in the gateway's own envelope, not as protocol errors.
 */
@Injectable()
export class McpServerService {
  private readonly logger = new Logger('Mcp');

  private readonly byName: Map<string, McpTool>;

  constructor(@Inject(MCP_TOOLS) private readonly tools: McpTool[]) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  createServer(): Server {
    const server = new Server(
      { name: 'system1-gateway', version: GATEWAY_VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: this.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema() })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const result = this.callTool(request.params.name, request.params.arguments ?? {}, extra.signal);
      if (!result) {
        const known = [...this.byName.keys()].join(', ');
        throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}; tools: ${known}`);
      }
      return result;
    });
    return server;
  }

  /** Runs a tool and wraps its response object as a tool result; null for an unknown tool. */
  callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult> | null {
    const tool = this.byName.get(name);
    if (!tool) return null;
    return tool.call(args, signal).then(
      ({ result, isError }) => ({ content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, isError }),
      (error: unknown) => {
        this.logger.error(`${tool.name} failed unexpectedly: ${error instanceof Error ? error.stack : String(error)}`);
        throw new McpError(ErrorCode.InternalError, `${tool.name} failed unexpectedly; see the server log`);
      },
    );
  }

  /** Serves on stdin/stdout until the client closes the stream. */
  async serveStdio(): Promise<void> {
    const server = this.createServer();
    const closed = new Promise<void>((resolve) => (server.onclose = resolve));
    server.onerror = (error) => this.logger.warn(`protocol error: ${error.message}`);
    // A long-lived server keeps answering: a stray rejection is logged, never allowed to end the process.
    process.on('unhandledRejection', (reason) => {
      this.logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
    });
    // Error replies carry `"id": null` (JSON-RPC's rule for an unreadable message), which the SDK's message
    // type cannot express: they are written as the same one-line JSON the transport writes.
    const stdin = guardStdin(process.stdin, (message) => process.stdout.write(`${JSON.stringify(message)}\n`));
    const transport = new StdioServerTransport(stdin);
    await server.connect(transport);
    answerMisshapenToolCalls(transport, (name, args) => this.callTool(name, args));
    stdin.once('end', () => void server.close());
    this.logger.log(`serving ${this.tools.length} tools on stdio (pid ${process.pid})`);
    await closed;
  }
}
