import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildObject, FastAnswerError, FieldAnswer, fieldsBelow, readFieldAnswers } from './answers-to-json';
import { fastCompletion } from './fast-completion';
import type { FastDecider } from './fast-decider';
import { Ineligible } from './ineligible';
import { Endpoint, readFastCandidate } from './request-eligibility';
import { REQUEST_ID_HEADER, ROUTE_HEADER, routeHeader, RouteReport } from './route-report';
import { schemaToQuestions } from './schema-to-questions';
import { compareFields, ShadowLog, ShadowRecord } from './shadow-log';
import { slowObject } from './slow-answer';
import { ForwardedCall, returnedHeaders, UpstreamError, UpstreamForwarder } from './upstream-forwarder';

/** What the router does, as settled from the config and the command line. */
export interface RouterOptions {
  upstream: URL;
  /** Every field must reach it for the fast answer to be served. */
  minConfidence: number;
  /** Ask both, serve the slow answer, record agreement. */
  shadow: boolean;
  shadowLog: string;
  /** When set, every call must carry it in `x-system1-token`. Never logged. */
  token?: string;
}

export interface RouterDeps {
  decide: FastDecider;
  forwarder: UpstreamForwarder;
  shadowLog: ShadowLog;
  /** One line per call, with its request id; never a header, a query string or message text. */
  log: (line: string) => void;
  warn: (line: string) => void;
  now: () => number;
}

/** The two endpoints whose structured-output requests the fast engine may take. */
const ROUTED: Record<string, Endpoint> = { '/v1/chat/completions': 'chat.completions', '/v1/responses': 'responses' };

/** The largest request the router reads (images make requests big; they go upstream all the same). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The most of a slow answer kept in memory for a shadow comparison. */
const MAX_SHADOW_BYTES = 8 * 1024 * 1024;

const TOKEN_HEADER = 'x-system1-token';

/** The outcome of trying the fast engine on one request. */
interface FastAttempt {
  report: RouteReport;
  schema?: string;
  /** Every field's answer, when the engine gave them all (served or not). */
  fields?: FieldAnswer[];
  /** The response to serve, on the `fast` route only. */
  completion?: Record<string, unknown>;
}

/**
 * An OpenAI-compatible front: `POST /v1/chat/completions` and `POST /v1/responses` are answered by the fast
 * engine when the request is eligible and every field reaches `min_confidence`; everything else (those
 * endpoints' other requests, any other path) goes to the upstream untouched, with the caller's credentials,
 * and its answer is relayed as it streams. Every answer carries the route report in `x-system1-route`.
 */
export class OpenAiRouter {
  private readonly tokenDigest?: Buffer;

  constructor(
    private readonly options: RouterOptions,
    private readonly deps: RouterDeps,
  ) {
    if (options.token) this.tokenDigest = digest(options.token);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `s1r_${randomUUID()}`;
    const started = this.deps.now();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const url = new URL(req.url ?? '/', 'http://router.invalid');
    const method = req.method ?? 'GET';
    const finish = (status: number, report?: RouteReport) =>
      this.deps.log(`${requestId} ${method} ${url.pathname} -> ${status}${report ? ` ${routeHeader(report)}` : ''} (${this.deps.now() - started} ms)`);

    if (!this.authorised(req)) {
      sendError(res, 401, `this router needs its token in the ${TOKEN_HEADER} header`, 'system1_token');
      return finish(401);
    }
    if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) {
      sendError(res, 404, 'the router serves the OpenAI API under /v1 only', 'not_found');
      return finish(404);
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      sendError(res, 413, `the request is over ${MAX_BODY_BYTES} bytes or could not be read`, 'request_too_large');
      return finish(413);
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const call: ForwardedCall = { method, path: url.pathname.slice('/v1'.length), query: url.search, headers: req.headers, body, signal: abort.signal };

    const endpoint = method === 'POST' ? ROUTED[url.pathname] : undefined;
    if (!endpoint) {
      const report: RouteReport = { route: 'ineligible', detail: `${method} ${url.pathname} is not a structured-output endpoint` };
      return finish(await this.relay(call, res, report), report);
    }
    if (this.options.shadow) return this.shadow(endpoint, call, res, requestId, finish);

    const attempt = await this.attemptFast(endpoint, call);
    if (attempt.completion) {
      sendJson(res, 200, attempt.completion, { [ROUTE_HEADER]: routeHeader(attempt.report) });
      return finish(200, attempt.report);
    }
    return finish(await this.relay(call, res, attempt.report), attempt.report);
  }

  /** Asks both at once, serves the slow answer, and records how the fast one compared. */
  private async shadow(endpoint: Endpoint, call: ForwardedCall, res: ServerResponse, requestId: string, finish: (status: number, report: RouteReport) => void): Promise<void> {
    const [attempt, upstream] = await Promise.all([this.attemptFast(endpoint, call), this.deps.forwarder.open(call).catch((error: unknown) => error)]);
    const report: RouteReport = { ...attempt.report, shadow: true };
    const record = (slowStatus: number, slowBody?: Buffer, encoding?: string) => {
      const entry: ShadowRecord = {
        at: new Date(this.deps.now()).toISOString(),
        request_id: requestId,
        endpoint,
        ...(attempt.schema !== undefined && { schema: attempt.schema }),
        route: attempt.report.route,
        ...(attempt.report.detail !== undefined && { detail: attempt.report.detail }),
        min_confidence: this.options.minConfidence,
        slow_status: slowStatus,
      };
      const slow = slowBody && slowStatus === 200 ? slowObject(endpoint, slowBody, encoding) : undefined;
      if (attempt.fields) entry.fields = compareFields(attempt.fields, slow);
      try {
        this.deps.shadowLog.append(entry);
      } catch (error) {
        this.deps.warn(`${requestId} cannot write the shadow log ${this.deps.shadowLog.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    };
    if (upstream instanceof Error) {
      const status = upstream instanceof UpstreamError ? upstream.status : 502;
      sendError(res, status, upstream instanceof UpstreamError ? upstream.message : 'the upstream could not be reached', 'upstream_error', report);
      record(status);
      return finish(status, report);
    }
    const response = upstream as IncomingMessage;
    const status = await this.pipeBack(response, res, report, attempt.fields ? (bytes) => record(response.statusCode ?? 502, bytes, headerText(response.headers['content-encoding'])) : undefined);
    if (!attempt.fields) record(status);
    finish(status, report);
  }

  /** Tries the fast engine; never throws for a request it cannot take. */
  private async attemptFast(endpoint: Endpoint, call: ForwardedCall): Promise<FastAttempt> {
    let candidate;
    let plan;
    try {
      let body: unknown;
      try {
        body = JSON.parse(call.body.toString('utf8'));
      } catch {
        throw new Ineligible('the body is not JSON');
      }
      candidate = readFastCandidate(endpoint, body, call.headers, call.query);
      plan = schemaToQuestions(candidate.schema, candidate.schemaName);
    } catch (error) {
      if (error instanceof Ineligible) return { report: { route: 'ineligible', detail: error.detail }, schema: candidate?.schemaName };
      throw error;
    }
    const schema = candidate.schemaName;
    let result;
    try {
      result = await this.deps.decide({ state: candidate.state, questions: plan.questions, minConfidence: this.options.minConfidence, signal: call.signal });
    } catch (error) {
      return { report: { route: 'fast_model_error', detail: `the fast engine failed: ${safeMessage(error)}` }, schema };
    }
    let fields: FieldAnswer[];
    try {
      fields = readFieldAnswers(plan, result);
    } catch (error) {
      if (error instanceof FastAnswerError) return { report: { route: 'fast_model_error', detail: error.detail }, schema };
      throw error;
    }
    const below = fieldsBelow(fields, this.options.minConfidence);
    if (below.length > 0) return { report: { route: 'low_confidence', detail: describeBelow(below, this.options.minConfidence) }, schema, fields };
    const completion = fastCompletion(endpoint, buildObject(plan.shape, fields), result.meta, this.deps.now());
    return { report: { route: 'fast' }, schema, fields, completion };
  }

  /** Forwards the call untouched and relays the answer; returns the status sent. */
  private async relay(call: ForwardedCall, res: ServerResponse, report: RouteReport): Promise<number> {
    let response: IncomingMessage;
    try {
      response = await this.deps.forwarder.open(call);
    } catch (error) {
      const status = error instanceof UpstreamError ? error.status : 502;
      sendError(res, status, error instanceof UpstreamError ? error.message : 'the upstream could not be reached', 'upstream_error', report);
      return status;
    }
    return this.pipeBack(response, res, report);
  }

  /**
   * Sends the upstream's status, headers and body as they come (a stream stays a stream), with the route
   * report added; `onBody`, when given, receives the whole body (up to a cap) once it has been relayed.
   */
  private pipeBack(response: IncomingMessage, res: ServerResponse, report: RouteReport, onBody?: (body: Buffer) => void): Promise<number> {
    const status = response.statusCode ?? 502;
    res.writeHead(status, { ...returnedHeaders(response.headers), [ROUTE_HEADER]: routeHeader(report) });
    const chunks: Buffer[] = [];
    let kept = 0;
    if (onBody) {
      response.on('data', (chunk: Buffer) => {
        if (kept + chunk.length <= MAX_SHADOW_BYTES) chunks.push(chunk);
        kept += chunk.length;
      });
    }
    return new Promise((resolve) => {
      response.on('end', () => {
        if (onBody && kept <= MAX_SHADOW_BYTES) onBody(Buffer.concat(chunks));
        resolve(status);
      });
      // A broken upstream stream ends the caller's too, so it sees a cut answer rather than a complete-looking one.
      response.on('error', () => {
        res.destroy();
        resolve(status);
      });
      response.pipe(res);
    });
  }

  private authorised(req: IncomingMessage): boolean {
    if (!this.tokenDigest) return true;
    const sent = headerText(req.headers[TOKEN_HEADER]);
    if (sent === undefined) return false;
    return timingSafeEqual(digest(sent.replace(/^Bearer\s+/i, '')), this.tokenDigest);
  }
}

/** Fixed-length digests, so the comparison takes the same time whatever was sent. */
const digest = (text: string) => createHash('sha256').update(text).digest();

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function describeBelow(below: FieldAnswer[], minConfidence: number): string {
  const shown = below.slice(0, 3).map(({ id, confidence }) => `${id} at ${confidence.toFixed(2)}`);
  const more = below.length > 3 ? ` and ${below.length - 3} more` : '';
  return `below min_confidence ${minConfidence}: ${shown.join(', ')}${more}`;
}

/** The library's messages are safe to show by contract; kept to one short line. */
function safeMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message.replace(/\s+/g, ' ').slice(0, 200);
  return 'unknown error';
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        reject(new Error('too large'));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An error in the OpenAI API's own shape, so clients raise their usual exception. */
function sendError(res: ServerResponse, status: number, message: string, code: string, report?: RouteReport): void {
  sendJson(res, status, { error: { message, type: 'system1_router_error', param: null, code } }, report ? { [ROUTE_HEADER]: routeHeader(report) } : {});
}
