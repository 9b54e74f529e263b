import { specTypeSchemas } from '@modelcontextprotocol/server';
import { isRecord } from '../common/is-record';
import { schemaProblem } from './envelope';

/**
 * The one member a `tools/call`'s arguments travel under through the SDK. Its schema refuses arguments that
 * are not a record (text, an array) with a dump of zod errors, and its copy of a record drops a `"__proto__"`
 * member: wrapped, they reach the tool exactly as sent and are answered in the gateway's own envelope.
 */
const SENT_ARGUMENTS = 'system1/sent-arguments';

/** A `tools/call` request ready for the SDK (its arguments wrapped), or why its params are refused. */
export type ToolCallCheck = { message: Record<string, unknown> } | { invalid: string };

/**
 * Checks a `tools/call` request whose JSON-RPC envelope passed (see envelope.ts) for faults outside the
 * arguments (no tool name, a bad `_meta` or `task`), which are answered as invalid params in one short line;
 * otherwise returns it with the arguments wrapped (see SENT_ARGUMENTS). Every transport calls this before
 * the SDK sees the request, so every call reaches the tool the same way.
 */
export function checkToolCall(message: Record<string, unknown>): ToolCallCheck {
  const params = isRecord(message.params) ? message.params : {};
  const name = own(params, 'name');
  if (typeof name !== 'string')
    return { invalid: 'invalid params: params.name must be a string, the name of the tool to call' };
  // A name and arguments alone (what most clients send) leave the SDK's schema nothing to refuse.
  if (Object.keys(params).every((key) => key === 'name' || key === 'arguments'))
    return { message: { ...message, params: { name, arguments: { [SENT_ARGUMENTS]: own(params, 'arguments') } } } };
  // Every params member but the arguments, as the SDK's schema reads them (own members only count as sent).
  const rest: Record<string, unknown> = Object.fromEntries(
    Object.entries(params).filter(([key]) => key !== 'arguments'),
  );
  const problem = schemaProblem(specTypeSchemas.CallToolRequest, { ...message, params: rest });
  if (problem !== null) return { invalid: `invalid params: ${problem}` };
  return { message: { ...message, params: { ...rest, arguments: { [SENT_ARGUMENTS]: own(params, 'arguments') } } } };
}

/** The arguments as the client sent them (`{}` when it sent none), from what the SDK hands the handler. */
export function sentArguments(args: Record<string, unknown> | undefined): unknown {
  if (args === undefined) return {};
  // A request that came another way (an in-process client) carries its arguments unwrapped.
  if (!Object.hasOwn(args, SENT_ARGUMENTS)) return args;
  const sent = args[SENT_ARGUMENTS];
  return sent === undefined ? {} : sent;
}

const own = (record: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(record, key) ? record[key] : undefined;
