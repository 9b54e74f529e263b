import {
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  specTypeSchemas,
  type Transport,
  type TransportSendOptions,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import { clip } from '../common/clip';
import { isRecord, kindOf } from '../common/is-record';
import { describeId, INVALID_PARAMS, type Parser, type RequestId, schemaProblem, usableId } from './envelope';
import { MODERN_PROTOCOL_VERSIONS } from './protocol-revisions';
import { checkToolCall } from './tool-call.guard';

/** The requests the server serves besides `tools/call`, with the SDK's schemas it reads their params by. */
const REQUESTS = new Map<string, Parser>([
  ['initialize', specTypeSchemas.InitializeRequest],
  ['server/discover', specTypeSchemas.DiscoverRequest],
  ['ping', specTypeSchemas.PingRequest],
  ['tools/list', specTypeSchemas.ListToolsRequest],
]);
/** How much of a client's method name or claimed revision a log line or an answer repeats. */
const ECHO_CHARS = 64;

/** The notifications the SDK handles, with their schemas. */
const NOTIFICATIONS = new Map<string, Parser>([
  ['notifications/initialized', specTypeSchemas.InitializedNotification],
  ['notifications/cancelled', specTypeSchemas.CancelledNotification],
  ['notifications/progress', specTypeSchemas.ProgressNotification],
]);

/** What the gate's inner transport may tell it: whether answers can still be written after its input ended. */
export interface DrainableTransport extends Transport {
  /** False once the client can read nothing more (stdout closed): then nothing is waited for. */
  readonly writable?: boolean;
}

export interface GateOptions {
  /** One line in the log for each message refused or dropped here, and for the drain. */
  warn: (line: string) => void;
  log: (line: string) => void;
  /** How long the answers in flight may take to be written once the input has ended. */
  drainBoundMs: number;
}

/**
 * The transport the SDK's stdio entry is given (`serveStdio(factory, { transport })`): it decorates the real
 * one, and checks each message whose JSON-RPC envelope passed (see envelope.ts) before the SDK sees it. The
 * SDK answers params that miss its schema with a dump of zod errors (as an internal error, for some
 * methods), so each request of a method served here is checked first with the same schema and a misfit is
 * answered as invalid params in one short line; a `tools/call` goes by checkToolCall. A request claiming a
 * revision the server does not serve is refused with the unsupported-version error, which the SDK checks
 * only on a connection's opening message (a claim that is not text, as a malformed envelope). A malformed
 * notification, or a response (this server asks the client nothing), is dropped with one line. What a line
 * or an answer repeats of the client's words (its method, the revision it claims) is cut short.
 *
 * It also counts the requests not yet answered: when the input ends, the answers in flight are written
 * (for at most `drainBoundMs`) before the close reaches the SDK. A request the client cancelled is not
 * answered, as in the SDK.
 */
export class GatedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  /** Requests handed to the SDK and not yet answered, by id key (a client may reuse an id). */
  private readonly pending = new Map<string, number>();
  private inFlightCount = 0;
  private ended = false;
  private readonly waiters = new Set<(settled: boolean) => void>();
  private readonly closedPromise: Promise<void>;
  private markClosed!: () => void;

  constructor(
    private readonly inner: DrainableTransport,
    private readonly options: GateOptions,
  ) {
    this.closedPromise = new Promise((resolve) => (this.markClosed = resolve));
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => void this.inputEnded();
  }

  /** Requests received and not yet answered. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Resolves once the connection is over: the input ended and the answers in flight were written. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const counted = isResponse(message) && usableId(message.id) && this.settle(message.id);
    let sent: Promise<void>;
    try {
      sent = this.inner.send(message, options);
    } catch (error) {
      // Passed on as thrown, as an async function would.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      sent = Promise.reject(error);
    }
    // A promise chain, not an async function: one answer of every decision passes here.
    return counted ? sent.finally(() => this.answered()) : sent;
  }

  async close(): Promise<void> {
    await this.inner.close();
    this.finish();
  }

  /**
   * Resolves true once every request received has been answered,
   * false after `timeoutMs` or when nothing more can be written.
   */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.inFlightCount === 0) return Promise.resolve(true);
    if (this.inner.writable === false) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (settled: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(settled);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(done);
    });
  }

  private async inputEnded(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.inFlightCount > 0 && this.inner.writable !== false) {
      const { drainBoundMs } = this.options;
      this.options.log(
        `stdin closed: writing the ${this.inFlightCount} answer(s) ` +
          `in flight first (for at most ${drainBoundMs / 1000} s)`,
      );
      if (!(await this.settled(drainBoundMs)))
        this.options.warn(
          `stdin closed: ${this.inFlightCount} answer(s) still unwritten after ${drainBoundMs / 1000} s, stopping`,
        );
    }
    this.finish();
  }

  private finish(): void {
    this.ended = true;
    for (const wake of [...this.waiters]) wake(false);
    this.onclose?.();
    this.onclose = undefined;
    this.markClosed();
  }

  private receive(message: JSONRPCMessage, extra?: Parameters<NonNullable<Transport['onmessage']>>[1]): void {
    // This server sends the client no requests (no sampling, elicitation or roots), so no response is awaited.
    if (!('method' in message))
      return this.options.warn(
        `dropped a response from the client (id ${describeId(message.id)}): ` +
          'Received a response for an unknown message ID',
      );
    const { method } = message;
    const claim = revisionClaim(message.params);
    if (!('id' in message)) {
      const schema = NOTIFICATIONS.get(method);
      const problem =
        'unsupported' in claim
          ? `it claims protocol revision ${claim.unsupported}, which this server does not serve`
          : 'malformed' in claim
            ? claim.malformed.message
            : schema
              ? schemaProblem(schema, message)
              : null;
      if (problem !== null) return this.options.warn(`dropped a ${clip(method, ECHO_CHARS)} notification: ${problem}`);
      if (method === 'notifications/cancelled' && isRecord(message.params)) this.cancelled(message.params.requestId);
      return this.onmessage?.(message, extra);
    }
    const { id } = message;
    if ('unsupported' in claim) {
      const error = new UnsupportedProtocolVersionError({
        supported: [...MODERN_PROTOCOL_VERSIONS],
        requested: claim.unsupported,
      });
      return this.refuse(id, method, error.code, error.message, error.data);
    }
    if ('malformed' in claim)
      return this.refuse(id, method, INVALID_PARAMS, claim.malformed.message, claim.malformed.data);
    let delivered: JSONRPCMessage = message;
    if (method === 'tools/call') {
      const check = checkToolCall(message);
      if ('invalid' in check) return this.refuse(id, method, INVALID_PARAMS, check.invalid);
      delivered = check.message as unknown as JSONRPCMessage;
    } else {
      const schema = REQUESTS.get(method);
      const problem = schema ? schemaProblem(schema, message) : null;
      if (problem !== null) return this.refuse(id, method, INVALID_PARAMS, `invalid params: ${problem}`);
    }
    this.inFlightCount++;
    const k = key(id);
    this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
    this.onmessage?.(delivered, extra);
  }

  private refuse(id: RequestId, method: string, code: number, message: string, data?: unknown): void {
    this.options.warn(`refused ${clip(method, ECHO_CHARS)} request ${describeId(id)} (${code}): ${message}`);
    this.inner
      .send({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } })
      .catch(() => undefined); // the client has gone
  }

  /**
   * Counts one request with this id as answered; false when none
   * was pending (an answer the SDK wrote for a refusal of its own).
   */
  private settle(id: RequestId): boolean {
    const k = key(id);
    const count = this.pending.get(k);
    if (!count) return false;
    if (count === 1) this.pending.delete(k);
    else this.pending.set(k, count - 1);
    return true;
  }

  /** The SDK aborts a cancelled handler and writes no answer: every request with that id is settled. */
  private cancelled(id: unknown): void {
    if (!usableId(id)) return;
    const count = this.pending.get(key(id)) ?? 0;
    this.pending.delete(key(id));
    this.answered(count);
  }

  private answered(count = 1): void {
    this.inFlightCount = Math.max(0, this.inFlightCount - count);
    if (this.inFlightCount === 0) for (const wake of [...this.waiters]) wake(true);
  }
}

const key = (id: RequestId) => (typeof id === 'string' ? `s${id}` : `n${id}`);

const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { id: unknown } =>
  !('method' in message) && ('result' in message || 'error' in message);

type RevisionClaim = { fine: true } | { unsupported: string } | { malformed: { message: string; data: unknown } };

/**
 * What a message's `_meta` envelope claims of its revision: nothing, or one this server serves (fine), one it
 * does not serve (cut short), or something that is not a revision at all (the envelope's error, in the
 * words and with the data the SDK's HTTP entry gives it).
 */
function revisionClaim(params: unknown): RevisionClaim {
  if (!isRecord(params) || !isRecord(params._meta) || !Object.hasOwn(params._meta, PROTOCOL_VERSION_META_KEY))
    return { fine: true };
  const claimed = params._meta[PROTOCOL_VERSION_META_KEY];
  if (typeof claimed !== 'string') {
    const problem = `expected a string, received ${kindOf(claimed)}`;
    return {
      malformed: {
        message: `Invalid _meta envelope for protocol revision ${MODERN_PROTOCOL_VERSIONS[0]}: ${PROTOCOL_VERSION_META_KEY}: ${problem}`,
        data: { envelope: { key: PROTOCOL_VERSION_META_KEY, problem } },
      },
    };
  }
  return MODERN_PROTOCOL_VERSIONS.includes(claimed) ? { fine: true } : { unsupported: clip(claimed, ECHO_CHARS) };
}
