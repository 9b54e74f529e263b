import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, type Server } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers one MCP message whose body the gateway has read and checked. */
export type McpHttpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
) => Promise<void>;

/** Builds the server for one request; `requestId` is the id its calls are logged under. */
export type ServerFor = (requestId: string | undefined) => Server;

/**
 * Both eras at one endpoint, built once per process. 2026-07-28 requests go to the SDK's `createMcpHandler`
 * (strict: `legacy: 'reject'`), which checks the envelope and the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers against the body; 2025-era requests (the SDK's own classification says which) are
 * served statelessly with JSON answers, as before, which the SDK's built-in fallback would stream as SSE.
 * Per request only what each revision needs is created: a Server bound to the tools, and its transport.
 */
export function mcpHttpHandler(
  serverFor: ServerFor,
  requestIdHeader: string,
  onerror: (error: Error) => void,
): McpHttpHandler {
  const requestIdOf = (headers: Headers | undefined) => headers?.get(requestIdHeader) ?? undefined;
  const modern = toNodeHandler(
    createMcpHandler(({ requestInfo }) => serverFor(requestIdOf(requestInfo?.headers)), { legacy: 'reject', onerror }),
    { onerror },
  );
  return async (req, res, body) => {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header(req, 'mcp-protocol-version'),
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      body,
    });
    if (route.kind !== 'legacy') return modern(req, res, body);
    // JSON answers, not a stream: a decision is one answer, and a load balancer need not handle SSE.
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = serverFor(header(req, requestIdHeader));
    // The client leaving (or the answer written) ends this request's server; calls still running are cancelled.
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
