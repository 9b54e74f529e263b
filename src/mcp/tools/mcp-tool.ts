import type { ToolName } from '../tool-names';

/**
 * One MCP tool: its listing and its handler. Add a tool with one file, its name in `tool-names.ts` and one
 * line in `mcp.module.ts`.
 */
export interface McpTool {
  readonly name: ToolName;
  readonly description: string;
  inputSchema(): Record<string, unknown>;
  /**
   * Returns the response object; `isError` marks a result whose `status` is `error`. `signal` is the
   * client's cancellation of the call; `requestId`, the id the transport knows the call by (an HTTP
   * request's), used when the arguments give none, so every log line of one call carries the same id.
   */
  call(
    args: unknown,
    signal?: AbortSignal,
    requestId?: string,
  ): Promise<{ result: Record<string, unknown>; isError: boolean }>;
}

export const MCP_TOOLS = Symbol('MCP_TOOLS');

/** Tools that take no arguments still publish a closed object schema, so clients send none. */
export const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;
