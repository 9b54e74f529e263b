import type { Type } from '@nestjs/common';

/**
 * A JSON Schema a tool publishes, generated from its DTO class: in `schema/<file>` (its `$id` too) and in
 * `system1_capabilities` under `<file's stem, dashes as underscores>_schema` (`ask-request.json`:
 * `ask_request_schema`).
 */
export interface ToolSchema {
  readonly file: `${string}.json`;
  /** The class-validator DTO the schema is generated from (and that validates the tool's arguments). */
  readonly dto: Type<unknown>;
  /** The DTO classes its `$ref`s point at, published under `$defs` by their class names. */
  readonly defs?: readonly Type<unknown>[];
}

/** What clients know a tool by: its name, its description, and the schemas of its arguments and result. */
export interface ToolDeclaration<Name extends string = string> {
  readonly name: Name;
  readonly description: string;
  /** Its arguments' schema (the tool's `inputSchema`); a tool without one takes no arguments (`NO_ARGUMENTS`). */
  readonly request?: ToolSchema;
  readonly response?: ToolSchema;
  /** A call is a decision (it asks an engine a question): serve-http counts it against a caller's rate. */
  readonly decides: boolean;
}

/**
 * One MCP tool's handler; its class carries the tool's declaration (`McpToolClass`). Adding a tool: its class,
 * its service, its DTOs and one line in `tool-list.ts`.
 */
export interface McpTool {
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

/** A tool's class: Nest builds the handler once per process; the static declaration is what clients see. */
export interface McpToolClass<Name extends string = string> extends Type<McpTool> {
  readonly declaration: ToolDeclaration<Name>;
}

/** Keeps a declaration's name as its literal type, so the tool names' type is read off the one tool list. */
export const declareTool = <const Name extends string>(declaration: ToolDeclaration<Name>) => declaration;

/** The injection token of the handlers by tool name, in the order clients list them. */
export const TOOL_HANDLERS = Symbol('TOOL_HANDLERS');

/** Tools that take no arguments still publish a closed object schema, so clients send none. */
export const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;
