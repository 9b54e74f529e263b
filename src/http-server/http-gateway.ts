import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { clip } from '../common/clip';
import { isRecord } from '../common/is-record';
import { errorReply, INVALID_PARAMS, readMessage, usableId } from '../mcp/envelope';
import { checkToolCall } from '../mcp/tool-call.guard';
import type { ToolName } from '../mcp/tool-list';
import { BodyRefused } from '../common/http/body-refused';
import { declaredTooLarge } from '../common/http/body-reader';
import { answerEarly } from '../common/http/early-answer';
import { sendJson } from '../common/http/send-json';
import type { HostGuard, OriginGuard } from '../common/http/host-guard';
import { callerScope } from '../decisions/pipeline/caller-scope';
import type { DecisionsApi } from '../decisions-api/decisions-api';
import { type DecisionWire, wireError } from '../decisions-api/wire-reply';
import { answerDecisions, DECISION_ROUTES } from '../decisions-api/decisions-http';
import type { Caller, CallerAccess, Refusal } from './callers/caller-access';
import type { HttpLimits } from './http-options';
import type { McpHttpHandler } from './mcp-http';
import type { GatewayMetrics } from './gateway-metrics';
import type { ReadinessCheck } from './readiness';
import { readBody, tooLargeMessage } from './gateway-request-body';
import { settleRequestId } from './request-id';

export const MCP_PATH = '/mcp';
const ROUTES = new Set([MCP_PATH, '/healthz', '/readyz', '/metrics', ...DECISION_ROUTES.keys()]);
/** Routes a load balancer probes: no token, and an HTTP/1.0 probe without a Host header is let through. */
const PROBES = new Set(['/healthz', '/readyz']);

export const HTTP_REQUEST_ID_HEADER = 'x-request-id';

/**
 * The tool whose permission a decisions request needs: typed questions about one state, as `system1_ask`
 * asks them. A caller's `tools` and OAuth scopes say whether it may, and each request counts against its rate.
 */
const DECISIONS_TOOL: ToolName = 'system1_ask';

/** The error body of every refusal: JSON-RPC's, which MCP clients show (the SDK's own transport answers so). */
const rpcError = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });

/** A refusal's body in the words its route's clients read: a decisions wire's envelope, else JSON-RPC's. */
const refusalBody = (wire: DecisionWire | undefined, status: number, message: string) =>
  wire ? wireError(wire, status, message).body : rpcError(message);

export interface GatewayDeps {
  /** Answers an MCP message of either era (mcp-http.ts). */
  mcp: McpHttpHandler;
  readiness: Pick<ReadinessCheck, 'check'>;
  metrics: Pick<GatewayMetrics, 'httpRequestDone' | 'text' | 'contentType'>;
  limits: Pick<HttpLimits, 'maxBodyBytes' | 'maxInFlight' | 'bodyIdleTimeoutMs'>;
  /** Who is calling and what they may do (tokens, OAuth, tools, rates): /mcp and /metrics ask it. */
  access: Pick<CallerAccess, 'identify' | 'admit' | 'mayReadMetrics' | 'scopeOf' | 'oauth'>;
  /** The served Decisions API (`/v1/decisions`, `/v1/systemone`); absent: those routes answer 404. */
  decisionsApi?: Pick<DecisionsApi, 'answer'>;
  /** One line per request, with its id; never a header value, a query string or a body. */
  log: (line: string) => void;
  warn: (line: string) => void;
  now: () => number;
}

/**
 * The MCP tools over Streamable HTTP at `/mcp`, both eras (mcp-http.ts), stateless (no session: any replica
 * answers any request), with `/healthz`, `/readyz` and `/metrics` beside it. Every request passes
 * the Host and Origin guards (DNS rebinding), then the token where one is needed, then the drain, the
 * in-flight cap and the body cap, each refusal a short JSON answer.
 */
export class HttpGateway {
  private hosts?: Pick<HostGuard, 'allows'>;
  private origins?: Pick<OriginGuard, 'allows'>;
  private address?: { host: string; port: number };
  private mcpInFlight = 0;
  private draining = false;
  private readonly idleWaiters = new Set<() => void>();

  constructor(private readonly deps: GatewayDeps) {}

  /** The guards are known once the port is bound (0 picks one); until then every request is refused. */
  guard(
    hosts: Pick<HostGuard, 'allows'>,
    origins: Pick<OriginGuard, 'allows'>,
    address?: { host: string; port: number },
  ): void {
    this.hosts = hosts;
    this.origins = origins;
    this.address = address;
  }

  /** MCP requests received and not yet answered. */
  get inFlight(): number {
    return this.mcpInFlight;
  }

  /** From now on `/readyz` answers 503 and new MCP requests are refused; resolves once none is in flight. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.mcpInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = this.deps.now();
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const wire = this.deps.decisionsApi ? DECISION_ROUTES.get(path) : undefined;
    const route = ROUTES.has(path) && (wire || !DECISION_ROUTES.has(path)) ? path : 'other';
    let requestId = settleRequestId(undefined, req.headers[HTTP_REQUEST_ID_HEADER], randomUUID);
    let call = '';
    let caller: Caller | undefined;
    res.setHeader(HTTP_REQUEST_ID_HEADER, requestId);
    if (this.draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 0;
      this.deps.metrics.httpRequestDone(route, status);
      const shown = route === 'other' ? clip(path, 80) : route;
      const by = caller ? ` caller=${clip(caller.name, 80)}` : '';
      this.deps.log(
        `${requestId} ${method} ${shown}${call} -> ` +
          `${status === 0 ? 'closed by the client before the answer' : status} ` +
          `(${this.deps.now() - started} ms)${by}`,
      );
    });
    const refuse = (status: number, message: string, headers: OutgoingHttpHeaders = {}) =>
      answerEarly(req, res, status, refusalBody(wire, status, message), headers);
    const refuseWith = (refusal: Refusal) => refuse(refusal.status, refusal.message, refusal.headers);

    const probe = PROBES.has(path) && method === 'GET';
    if (!(probe && req.headers.host === undefined) && !this.hosts?.allows(req.headers.host)) {
      return refuse(
        403,
        'the Host header names a host this server does not answer to (a guard against DNS rebinding); ' +
          'add the name to [http] allowed_hosts to use it',
      );
    }
    if (!this.origins?.allows(req.headers.origin)) {
      return refuse(
        403,
        'the Origin header names a site this server does not answer to (a guard against DNS rebinding); ' +
          'add it to [http] allowed_origins to use it',
      );
    }
    const resource = this.deps.access.oauth?.resource;
    if (resource?.metadataPaths.includes(path)) {
      if (method !== 'GET') return refuse(405, `${path} takes GET only`, { allow: 'GET' });
      return sendJson(res, 200, resource.metadata());
    }
    // RFC 6750 allows a token in the query; MCP's authorization does not (URLs end up in logs and histories).
    if (hasQueryToken(req.url))
      return refuse(400, 'an access token is taken only in the Authorization header, never in the URL');
    if (route === 'other')
      return refuse(
        404,
        `nothing here: the MCP endpoint is ${MCP_PATH}; ${[...ROUTES].slice(1).join(', ')} are beside it`,
      );
    const allowed = route === MCP_PATH || wire ? 'POST' : 'GET';
    // Stateless: no session to resume or delete, and no stream of server-sent requests to open with GET.
    if (method !== allowed) return refuse(405, `${route} takes ${allowed} only`, { allow: allowed });
    if (route === '/healthz') return sendJson(res, 200, { status: 'alive' });
    if (route === '/readyz') return this.ready(res);
    const identified = await this.deps.access.identify(req);
    if ('status' in identified) return refuseWith(identified);
    caller = identified;
    if (route === '/metrics') {
      const refused = this.deps.access.mayReadMetrics(caller);
      return refused ? refuseWith(refused) : this.metrics(res);
    }

    if (declaredTooLarge(req, this.deps.limits.maxBodyBytes))
      return refuse(413, tooLargeMessage(this.deps.limits.maxBodyBytes));
    let body: Buffer;
    try {
      body = await readBody(req, res, this.deps.limits.maxBodyBytes, this.deps.limits.bodyIdleTimeoutMs);
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      // A stalled client sends nothing more to drop: the answer is written and the connection closed.
      const answer = refusalBody(wire, error.status, error.message);
      return answerEarly(req, res, error.status, answer, {}, error.status === 408 ? 0 : undefined);
    }
    if (wire) return this.decisions(wire, { req, res, body, requestId }, caller);
    const read = readMessage(body.toString('utf8'), 'request');
    const message = 'message' in read ? read.message : undefined;
    requestId = settleRequestId(message, req.headers[HTTP_REQUEST_ID_HEADER], () => requestId);
    res.setHeader(HTTP_REQUEST_ID_HEADER, requestId);
    call = message ? describeCall(message) : '';
    if ('reply' in read) return sendJson(res, 400, read.reply);
    if ('drop' in read) {
      this.deps.warn(`${requestId} ${read.drop}`);
      res.writeHead(202).end();
      return;
    }
    // Before a decision slot is taken: a caller over its rate or outside its tools holds none of them.
    const refused = await this.deps.access.admit(caller, toolOf(read.message));
    if (refused) {
      if (refused.holdMs && !this.draining) await held(res, refused.holdMs);
      return refuseWith(refused);
    }
    // A request takes a decision slot once its body is here: clients trickling bodies cannot hold them all.
    const busy = this.busy();
    if (busy) return refuse(503, busy, { 'retry-after': '1' });
    this.mcpInFlight++;
    res.once('close', () => this.answered());
    // The caller's scope follows every decision this request makes (its models, its name in the metrics).
    await callerScope.run(this.deps.access.scopeOf(caller), () => this.answerMcp(req, res, read.message, requestId));
  }

  /** A decisions request: the caller's policy and rate (as a system1_ask call), the slots, then the wire's answer. */
  private async decisions(
    wire: DecisionWire,
    request: { req: IncomingMessage; res: ServerResponse; body: Buffer; requestId: string },
    caller: Caller,
  ): Promise<void> {
    const { req, res } = request;
    const refuse = (status: number, message: string, headers: OutgoingHttpHeaders = {}) =>
      answerEarly(req, res, status, refusalBody(wire, status, message), headers);
    const refused = await this.deps.access.admit(caller, DECISIONS_TOOL, pathOf(req.url));
    if (refused) {
      if (refused.holdMs && !this.draining) await held(res, refused.holdMs);
      return refuse(refused.status, refused.message, refused.headers);
    }
    const busy = this.busy();
    if (busy) return refuse(503, busy, { 'retry-after': '1' });
    this.mcpInFlight++;
    res.once('close', () => this.answered());
    await callerScope.run(this.deps.access.scopeOf(caller), () =>
      answerDecisions(this.deps.decisionsApi!, wire, { ...request, listening: this.address }, this.deps.warn),
    );
  }

  /** Why no decision slot is free now (draining, or every slot taken); undefined when one is. */
  private busy(): string | undefined {
    if (this.draining) return 'this server is shutting down; send the request to another replica';
    if (this.mcpInFlight < this.deps.limits.maxInFlight) return undefined;
    return (
      `this server is answering as many requests as it may at once (${this.deps.limits.maxInFlight}, ` +
      '[http] max_in_flight); retry shortly'
    );
  }

  private async answerMcp(
    req: IncomingMessage,
    res: ServerResponse,
    message: Record<string, unknown>,
    requestId: string,
  ): Promise<void> {
    let body = message;
    if (message.method === 'tools/call' && usableId(message.id)) {
      const check = checkToolCall(message);
      if ('invalid' in check) return sendJson(res, 200, errorReply(message.id, INVALID_PARAMS, check.invalid));
      body = check.message;
    }
    // The id this request's calls are logged under, settled above from the body or the client's header.
    req.headers[HTTP_REQUEST_ID_HEADER] = requestId;
    await this.deps.mcp(req, res, body);
  }

  private async ready(res: ServerResponse): Promise<void> {
    if (this.draining)
      return sendJson(res, 503, { ready: false, reason: 'draining', detail: 'this server is shutting down' });
    try {
      const readiness = await this.deps.readiness.check();
      sendJson(res, readiness.ready ? 200 : 503, readiness);
    } catch (error) {
      this.deps.warn(`the readiness check failed: ${error instanceof Error ? error.name : 'error'}`);
      sendJson(res, 503, {
        ready: false,
        reason: 'check_failed',
        detail: 'the readiness check failed; see the server log',
      });
    }
  }

  private async metrics(res: ServerResponse): Promise<void> {
    const text = await this.deps.metrics.text();
    res.writeHead(200, { 'content-type': this.deps.metrics.contentType, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private answered(): void {
    this.mcpInFlight--;
    if (this.mcpInFlight === 0) for (const wake of [...this.idleWaiters]) wake();
    if (this.mcpInFlight === 0) this.idleWaiters.clear();
  }
}

/** The path alone: a query string may hold anything, and is never routed on or logged. */
function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0];
  return path === '' ? '/' : path;
}

/** Waits `ms`, or less when the client leaves first. */
function held(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

/**
 * `?access_token=...` (RFC 6750 section 2.3), in any case (`ACCESS_TOKEN`, `Access_Token`) and however
 * percent-encoded: a server or proxy that matches the name loosely must not find a token this one let through.
 */
function hasQueryToken(url: string | undefined): boolean {
  const query = (url ?? '').split('?')[1];
  if (query === undefined) return false;
  for (const name of new URLSearchParams(query).keys()) if (name.toLowerCase() === 'access_token') return true;
  return false;
}

/** The tool a `tools/call` names; undefined for any other message. */
function toolOf(message: Record<string, unknown>): string | undefined {
  const params = isRecord(message.params) ? message.params : undefined;
  return message.method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
}

/** ` tools/call system1_decide`, ` initialize`, ...: what the message asked, for the access log. */
function describeCall(message: Record<string, unknown>): string {
  if (typeof message.method !== 'string') return ' (a response)';
  const params = isRecord(message.params) ? message.params : undefined;
  const tool = message.method === 'tools/call' && typeof params?.name === 'string' ? ` ${clip(params.name, 80)}` : '';
  return ` ${clip(message.method, 80)}${tool}`;
}
