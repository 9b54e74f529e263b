/** What a test reads from a tool call, whichever way the client reached the server (a process, or memory). */
export type Json = Record<string, any>;

/** The response of one tool call: the structured object, after checking the envelope's invariants. */
export interface ToolReply {
  body: Json;
  isError: boolean;
  text: string;
}

/** The part of an MCP client (the SDK's 1.x or 2.x `Client`) the tool helpers use. */
export interface ToolClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/**
 * Calls a tool and checks what every tool result must satisfy: the object is in structuredContent, the same
 * object is the JSON text of content[0], and isError is true exactly when status is "error".
 */
export async function callTool(client: ToolClient, name: string, args: Record<string, unknown>): Promise<ToolReply> {
  const result = (await client.callTool({ name, arguments: args })) as {
    structuredContent?: Json;
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  const body = result.structuredContent;
  if (!body || typeof body !== 'object')
    throw new Error(`${name} returned no structuredContent: ${JSON.stringify(result)}`);
  const first = result.content?.[0];
  expect(first?.type).toBe('text');
  expect(JSON.parse(first?.text ?? 'null')).toStrictEqual(body);
  expect(result.isError === true).toBe(body.status === 'error');
  return { body, isError: result.isError === true, text: first?.text ?? '' };
}

/** The tool calls a test makes of one connected client, whatever carries them (a process's stdio, or memory). */
export abstract class ToolCalls {
  abstract readonly client: ToolClient;

  /** Calls a tool, checking the result's envelope (see {@link callTool}). */
  call(name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
    return callTool(this.client, name, args);
  }

  decide(args: Record<string, unknown>): Promise<ToolReply> {
    return this.call('system1_decide', args);
  }

  async health(): Promise<Json> {
    return (await this.call('system1_health')).body;
  }

  async capabilities(): Promise<Json> {
    return (await this.call('system1_capabilities')).body;
  }
}
