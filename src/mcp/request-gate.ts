import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResult, ErrorCode, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../common/is-record';
import { describeId, INVALID_PARAMS, Parser, RequestId, schemaProblem, short, usableId } from './envelope';
import { routeToolCall } from './misshapen-call.guard';

/**
 * A JSON-RPC error answered as it is. Not the SDK's McpError: that one writes "MCP error <code>: " into its
 * message, and the client's McpError adds it again ("MCP error -32602: MCP error -32602: unknown tool").
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** Runs a tool; rejects with an RpcError (an unknown tool, an unexpected failure). */
export type ToolCall = (name: string, args: unknown, signal: AbortSignal) => Promise<CallToolResult>;

export interface GateOptions {
  call: ToolCall;
  /** The schema of each request the SDK serves besides `tools/call`, by method: initialize, ping, tools/list. */
  requests: ReadonlyMap<string, Parser>;
  /** The schema of each notification the SDK handles, by method. */
  notifications: ReadonlyMap<string, Parser>;
  /** One line in the log for each message refused or dropped here. */
  warn: (line: string) => void;
}

export interface RequestGate {
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  /** Resolves true once every request received has been answered (written), false after `timeoutMs` or on close. */
  settled(timeoutMs: number): Promise<boolean>;
}

/**
 * Stands between the SDK's stdio transport and its Protocol, for messages whose JSON-RPC envelope passed
 * (see envelope.ts). The SDK's handlers check their params against its schemas and answer a misfit with a
 * dump of zod errors as an internal error, or throw on some input and answer nothing: here each request of
 * a method the server serves is checked first with the same schema, and a misfit is answered as invalid
 * params in one short line (one line in the log too). `tools/call` goes by routeToolCall: arguments the SDK
 * would refuse or mangle are answered by the tool itself, in the gateway's own envelope. A malformed
 * notification is dropped with one line (notifications are never answered).
 *
 * It also counts the requests not yet answered, so the server can write the answers in flight before it
 * exits. A request cancelled by the client (notifications/cancelled) is not answered, as in the SDK.
 */
export function gateRequests(transport: Transport, options: GateOptions): RequestGate {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const onclose = transport.onclose;

  /** Requests handed to the SDK and not yet answered, by id key (a client may reuse an id). */
  const inSdk = new Map<string, number>();
  /** Tool calls answered here and still running, by id key, so the client can cancel them. */
  const running = new Map<string, Set<AbortController>>();
  let inFlight = 0;
  let closed = false;
  const waiters = new Set<(settled: boolean) => void>();
  const key = (id: RequestId) => (typeof id === 'string' ? `s${id}` : `n${id}`);

  const answered = (count = 1) => {
    inFlight = Math.max(0, inFlight - count);
    if (inFlight === 0) for (const wake of [...waiters]) wake(true);
  };

  /** Answers a request here, then counts it answered once written (or once writing failed). */
  const answer = (message: JSONRPCMessage) =>
    send(message)
      .catch(() => undefined) // the client has gone: nothing left to answer
      .finally(() => answered());

  const refuse = (id: RequestId, method: string, code: number, message: string) => {
    options.warn(`refused ${method} request ${describeId(id)} (${code}): ${message}`);
    void answer({ jsonrpc: '2.0', id, error: { code, message } });
  };

  const callDirectly = (id: RequestId, name: string, args: unknown) => {
    const controller = new AbortController();
    const calls = running.get(key(id)) ?? new Set();
    running.set(key(id), calls.add(controller));
    const forget = () => {
      calls.delete(controller);
      if (calls.size === 0 && running.get(key(id)) === calls) running.delete(key(id));
    };
    options
      .call(name, args, controller.signal)
      .then(
        (result): JSONRPCMessage => ({ jsonrpc: '2.0', id, result }),
        (error: { code?: unknown; message?: unknown }): JSONRPCMessage => ({
          jsonrpc: '2.0',
          id,
          error: { code: Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError, message: short(String(error?.message ?? 'internal error')) },
        }),
      )
      .then((reply) => {
        forget();
        // A cancelled call is not answered (and was counted answered when cancelled).
        if (!controller.signal.aborted) void answer(reply);
      })
      .catch(() => undefined);
  };

  const cancel = (id: unknown) => {
    if (!usableId(id)) return;
    const k = key(id);
    // The SDK aborts its handler and writes no answer.
    const sdkCount = inSdk.get(k) ?? 0;
    inSdk.delete(k);
    const calls = running.get(k);
    running.delete(k);
    for (const controller of calls ?? []) controller.abort('cancelled by the client');
    answered(sdkCount + (calls?.size ?? 0));
  };

  transport.send = (message, sendOptions) => {
    const sent = send(message, sendOptions);
    if (!isResponse(message) || !usableId(message.id)) return sent;
    const k = key(message.id);
    const count = inSdk.get(k);
    if (!count) return sent;
    if (count === 1) inSdk.delete(k);
    else inSdk.set(k, count - 1);
    return sent.finally(() => answered());
  };

  transport.onclose = () => {
    closed = true;
    for (const calls of running.values()) for (const controller of calls) controller.abort('the session closed');
    running.clear();
    for (const wake of [...waiters]) wake(false);
    onclose?.();
  };

  transport.onmessage = (message, extra) => {
    if (!('method' in message)) return deliver?.(message, extra); // a response from the client
    const { method } = message;
    if (!('id' in message)) {
      const schema = options.notifications.get(method);
      const problem = schema ? schemaProblem(schema, message) : null;
      if (problem !== null) return options.warn(`dropped a ${method} notification: ${problem}`);
      if (method === 'notifications/cancelled' && isRecord(message.params)) cancel(message.params.requestId);
      return deliver?.(message, extra);
    }
    const { id } = message;
    inFlight++;
    try {
      if (method === 'tools/call') {
        const route = routeToolCall(message as unknown as Record<string, unknown>);
        if (route.kind === 'invalid') return refuse(id, method, INVALID_PARAMS, route.message);
        if (route.kind === 'direct') return callDirectly(id, route.name, route.args);
      } else {
        const schema = options.requests.get(method);
        const problem = schema ? schemaProblem(schema, message) : null;
        if (problem !== null) return refuse(id, method, INVALID_PARAMS, `invalid params: ${problem}`);
      }
    } catch (error) {
      return refuse(id, method, ErrorCode.InternalError, `internal error: ${short(error instanceof Error ? error.message : String(error))}`);
    }
    const k = key(id);
    inSdk.set(k, (inSdk.get(k) ?? 0) + 1);
    try {
      deliver?.(message, extra);
    } catch (error) {
      // The SDK threw before it took the request on: it will not answer it.
      const count = inSdk.get(k) ?? 0;
      if (count <= 1) inSdk.delete(k);
      else inSdk.set(k, count - 1);
      refuse(id, method, ErrorCode.InternalError, `internal error: ${short(error instanceof Error ? error.message : String(error))}`);
    }
  };

  return {
    get inFlight() {
      return inFlight;
    },
    settled(timeoutMs: number) {
      if (inFlight === 0) return Promise.resolve(true);
      if (closed) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (settled: boolean) => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve(settled);
        };
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(done);
      });
    },
  };
}

const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { id: unknown } => !('method' in message) && ('result' in message || 'error' in message);
