import { specTypeSchemas, type StandardSchemaV1Sync } from '@modelcontextprotocol/server';
import { clip } from '../common/clip';
import { isRecord } from '../common/is-record';

/** JSON-RPC's own error codes. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export type RequestId = string | number;

/** What a JSON-RPC peer can answer under: a string or an integer (anything else is answered with id null). */
export const usableId = (id: unknown): id is RequestId => typeof id === 'string' || Number.isInteger(id);

/** A schema of the SDK's (`specTypeSchemas`), read through the Standard Schema interface it offers. */
export type Parser = StandardSchemaV1Sync;

/**
 * Why `value` does not fit `schema`, in one short line naming the first faulty field, or null when it fits.
 * A schema may throw on some input (a record with a `"constructor": null` member): that is a misfit too.
 */
export function schemaProblem(schema: Parser, value: unknown): string | null {
  let issues: readonly { path?: readonly (PropertyKey | { key: PropertyKey })[]; message: string }[] | undefined;
  try {
    issues = schema['~standard'].validate(value).issues;
  } catch {
    return 'a member could not be read (a "constructor" or "__proto__" member where an object is expected)';
  }
  if (issues === undefined) return null;
  const issue = issues[0];
  if (!issue) return 'the message does not fit the protocol';
  const where = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
  return short(`${where === '' ? 'the message' : where}: ${issue.message}`);
}

/** One line, at most 200 characters: an error message a client shows, not a dump. */
export function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return clip(line, 200);
}

/** A message the SDK would drop: answered here (`answer`) or dropped with a line in the log (`drop`). */
export type EnvelopeFault = { answer: { id: RequestId | null; code: number; message: string } } | { drop: string };

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Checks a JSON object against the JSON-RPC 2.0 envelope the MCP SDK accepts, which drops (with a dump of
 * its schema errors on stderr) every message that does not fit. A request that does not fit is answered
 * with a short error under its id when the id is usable and under `null` otherwise (JSON-RPC's rule); a
 * response from the client that does not fit is dropped, since a response is never answered.
 */
export function envelopeFault(message: Record<string, unknown>): EnvelopeFault | null {
  if (!('method' in message) && ('result' in message || 'error' in message)) {
    const problem = schemaProblem(
      'result' in message ? specTypeSchemas.JSONRPCResultResponse : specTypeSchemas.JSONRPCErrorResponse,
      message,
    );
    return problem === null
      ? null
      : { drop: `dropped an unreadable response from the client (id ${describeId(message.id)}): ${problem}` };
  }
  const id = usableId(message.id) ? message.id : null;
  // Without an id to answer under, it cannot be a request at all: an invalid request, whatever is wrong.
  const fault = (code: number, why: string): EnvelopeFault => {
    const shown = id === null ? INVALID_REQUEST : code;
    return {
      answer: {
        id,
        code: shown,
        message: short(`${shown === INVALID_PARAMS ? 'invalid params' : 'invalid request'}: ${why}`),
      },
    };
  };

  if (message.jsonrpc !== '2.0') return fault(INVALID_REQUEST, '"jsonrpc" must be "2.0"');
  if (typeof message.method !== 'string') return fault(INVALID_REQUEST, '"method" must be a string');
  if ('id' in message && !usableId(message.id)) return fault(INVALID_REQUEST, '"id" must be a string or an integer');
  if (typeof message.id === 'number' && !Number.isSafeInteger(message.id))
    return fault(INVALID_REQUEST, '"id" must be an integer between -(2^53 - 1) and 2^53 - 1');
  const extra = Object.keys(message).find((key) => !REQUEST_KEYS.has(key));
  if (extra !== undefined)
    return fault(
      INVALID_REQUEST,
      `unknown member ${JSON.stringify(extra)}: a request has only jsonrpc, id, method and params`,
    );
  if ('params' in message) {
    const { params } = message;
    if (Array.isArray(params)) return fault(INVALID_PARAMS, '"params" must be an object (MCP takes named parameters)');
    if (!isRecord(params)) return fault(INVALID_REQUEST, '"params" must be an object');
    if ('_meta' in params && !isRecord(params._meta)) return fault(INVALID_PARAMS, '"params._meta" must be an object');
    // Without `_meta`, the checks above are the SDK's whole envelope schema (these members and no other, params
    // any object): its parse, the costliest step of reading a line, is left to the SDK's own.
    if (!('_meta' in params)) return null;
  } else return null;
  // The SDK's own schema has the last word on `_meta`, so nothing it would drop gets past.
  const problem = schemaProblem(
    'id' in message ? specTypeSchemas.JSONRPCRequest : specTypeSchemas.JSONRPCNotification,
    message,
  );
  if (problem !== null) return fault(problem.startsWith('params') ? INVALID_PARAMS : INVALID_REQUEST, problem);
  return null;
}

/** A JSON-RPC error answered before the SDK sees the message; `id` is null when none could be read. */
export type ErrorReply = { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string } };

export function errorReply(id: RequestId | null, code: number, message: string): ErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** One message read from its text: passed on to the SDK, answered here, or dropped with a line in the log. */
export type MessageCheck = { message: Record<string, unknown> } | { reply: ErrorReply } | { drop: string };

/**
 * Reads one message as the SDK would take it, answering what it would answer with nothing (or with a dump of
 * its schema errors): text that is not JSON, a batch, a non-object, an envelope that does not fit (see
 * envelopeFault). `unit` names what carries one message to the client: a stdio line or an HTTP request.
 */
export function readMessage(text: string, unit: 'line' | 'request'): MessageCheck {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return {
      reply: errorReply(null, PARSE_ERROR, `parse error: the ${unit === 'line' ? 'line' : 'body'} is not valid JSON`),
    };
  }
  if (Array.isArray(message))
    return { reply: errorReply(null, INVALID_REQUEST, `batches are not supported: send one message per ${unit}`) };
  if (!isRecord(message)) return { reply: errorReply(null, INVALID_REQUEST, 'a message must be a JSON object') };
  const fault = envelopeFault(message);
  if (fault && 'drop' in fault) return { drop: fault.drop };
  if (fault) return { reply: errorReply(fault.answer.id, fault.answer.code, fault.answer.message) };
  return { message };
}

/** An id for a log line: short, and never the whole of a huge value. */
export function describeId(id: unknown): string {
  if (id === undefined) return 'none';
  let text: string;
  try {
    text = JSON.stringify(id) ?? String(id);
  } catch {
    text = String(id);
  }
  return clip(text, 60);
}
