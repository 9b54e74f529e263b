import { isRecord } from '../common/is-record';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, CallToolResult, JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';

type ToolCall = (name: string, args: unknown) => Promise<CallToolResult> | null;

/**
 * The SDK checks `tools/call` arguments against its own schema before any handler runs: arguments that are
 * not a plain record (text, an array, an object with a "constructor" key) get a bare JSON-RPC error, and a
 * "__proto__" key is dropped without a word. The contract answers every invalid argument in the gateway's
 * own envelope, so calls the SDK would mangle are taken off its path here and answered by `call` with the
 * arguments exactly as sent. Everything else goes through the SDK untouched.
 */
export function answerMisshapenToolCalls(transport: Transport, call: ToolCall): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const misshapen = misshapenCall(message);
    const answer = misshapen && call(misshapen.name, misshapen.args);
    if (!misshapen || !answer) return deliver?.(message, extra);
    const { id } = misshapen;
    answer
      .then(
        (result) => transport.send({ jsonrpc: '2.0', id, result }),
        (error: McpError) => transport.send({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message } }),
      )
      .catch(() => undefined); // the client has gone: nothing left to answer

  };
}

function misshapenCall(message: JSONRPCMessage): { id: string | number; name: string; args: unknown } | null {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return null;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string') return null;
  const parsed = CallToolRequestSchema.safeParse(message);
  const kept = parsed.success ? Object.keys(parsed.data.params.arguments ?? {}).length : -1;
  const sent = isRecord(params.arguments) ? Object.keys(params.arguments).length : params.arguments === undefined ? 0 : -2;
  return kept === sent ? null : { id: message.id, name: params.name, args: params.arguments };
}
