import { isRecord } from '../common/is-record';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { schemaProblem } from './envelope';

/**
 * Where a `tools/call` request goes. The SDK checks the whole request against its own schema before any
 * handler runs and answers a misfit with a dump of its errors (as an internal error), or throws on some
 * input ("constructor": null in the arguments) and answers nothing at all:
 * - `invalid`: a fault outside the arguments (no tool name, a bad `_meta` or `task`), answered as invalid
 *   params with `message`;
 * - `direct`: arguments the SDK would refuse or mangle (text, an array, an object with a "constructor" or
 *   "__proto__" key), answered by the tool itself with the arguments exactly as sent, in the gateway's
 *   own envelope;
 * - `sdk`: everything else, which goes through the SDK untouched.
 */
export type ToolCallRoute = { kind: 'invalid'; message: string } | { kind: 'direct'; name: string; args: unknown } | { kind: 'sdk' };

/**
 * Routes a `tools/call` request as the SDK's transport delivers it: its JSON-RPC envelope checked (see
 * envelope.ts), and its params copied by the SDK's schema, which turns a `"__proto__"` member of `params`
 * or `_meta` into the copy's prototype. Only own members count as sent; the checks read the copy the way the
 * SDK's handler will.
 */
export function routeToolCall(message: Record<string, unknown>): ToolCallRoute {
  const params = isRecord(message.params) ? message.params : {};
  const name = own(params, 'name');
  if (typeof name !== 'string') return { kind: 'invalid', message: 'invalid params: params.name must be a string, the name of the tool to call' };
  const args = own(params, 'arguments');
  // The common case first, in the one parse the SDK makes too: a request it keeps whole goes to it.
  if (keptBySdk(message, args)) return { kind: 'sdk' };
  // Every params member but the arguments, as the SDK's schema reads them.
  const rest: Record<string, unknown> = Object.fromEntries(Object.entries(params).filter(([key]) => key !== 'arguments'));
  const problem = schemaProblem(CallToolRequestSchema, { ...message, params: rest });
  if (problem !== null) return { kind: 'invalid', message: `invalid params: ${problem}` };
  return { kind: 'direct', name, args };
}

/** Whether the SDK's schema passes the arguments on exactly as sent: none, or a record it keeps whole. */
function keptBySdk(message: Record<string, unknown>, args: unknown): boolean {
  if (args !== undefined && !isRecord(args)) return false;
  try {
    const parsed = CallToolRequestSchema.safeParse(message);
    if (!parsed.success) return false;
    const kept = parsed.data.params.arguments;
    if (args === undefined) return kept === undefined;
    return kept !== undefined && Object.keys(kept).length === Object.keys(args).length;
  } catch {
    return false; // zod throws on some records ("constructor": null)
  }
}

const own = (record: Record<string, unknown>, key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
