import { randomUUID } from 'node:crypto';
import { clip, oneLine } from '../common/clip';
import { answerEarly } from '../common/http/early-answer';
import { SecretCheck } from '../common/http/secret-check';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildObject, FastAnswerError, type FieldAnswer, fieldsBelow, readFieldAnswers } from './answers-to-json';
import { BodyRefused } from '../common/http/body-refused';
import type { DecisionsApi } from '../decisions-api/decisions-api';
import { answerDecisions, DECISION_ROUTES } from '../decisions-api/decisions-http';
import { type DecisionWire, wireError } from '../decisions-api/wire-reply';
import { sendJson } from '../common/http/send-json';
import { routerError, sendError } from './error-answer';
import { fastCompletion } from './fast-completion';
import type { FastDecider } from './fast-decider';
import { Ineligible } from './ineligible';
import type { HostGuard } from '../common/http/host-guard';
import { BODY_ERROR_CODES, type HeldBody, type RequestBodies } from './router-request-body';
import { type Endpoint, readFastCandidate } from './request-eligibility';
import { MAX_DETAIL_CHARS, SYSTEM1_REQUEST_ID_HEADER, ROUTE_HEADER, routeHeader } from './route-report';
import { type RouteReport, routeReport } from './route-report';
import { schemaToQuestions } from './schema-to-questions';
import { compareFields, type ShadowLog, type ShadowRecord } from './shadow-log';
import { readSlowAnswer } from './slow-answer';
import { KeptAnswer, type SlowBody } from './kept-answer';
import type { ByteBudget } from './byte-budget';
import { type ForwardedCall, UpstreamError, type UpstreamForwarder } from './upstream-forwarder';

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
  /** When set, the fast engine is never asked (its route is `fast_off`, with this detail): the upstream answers. */
  fastOff?: string;
}

export interface RouterDeps {
  decide: FastDecider;
  forwarder: UpstreamForwarder;
  shadowLog: ShadowLog;
  /** Reads request bodies within the size and memory caps. */
  bodies: RequestBodies;
  /** Shadow mode: what all requests keep of slow answers at once, to compare. */
  keptSlowAnswers: ByteBudget;
  /** The Host headers the router answers. */
  hosts: Pick<HostGuard, 'allows'>;
  /** The served Decisions API, answered here and never relayed; absent: its routes answer 404. */
  decisions?: ServedDecisions;
  /** One line per call, with its request id; never a header, a query string or message text. */
  log: (line: string) => void;
  warn: (line: string) => void;
  now: () => number;
}

/** `/v1/decisions` and `/v1/systemone` on the router: the API, and the address the router is bound to. */
export interface ServedDecisions {
  api: Pick<DecisionsApi, 'answer'>;
  /** Known once bound; an engine there would be the router itself, so the API refuses to ask it. */
  listening: () => { host: string; port: number } | undefined;
}

/** The two endpoints whose structured-output requests the fast engine may take. */
const ROUTED: Record<string, Endpoint> = { '/v1/chat/completions': 'chat.completions', '/v1/responses': 'responses' };

const TOKEN_HEADER = 'x-system1-token';

const SLOW_ANSWER_GONE =
  'the slow answer was gone before the router could relay it (cut off by the upstream, or the caller left)';

/** The upstream's answer, or why there is none (a status and words safe to show). */
type Opened = { response: IncomingMessage } | { status: number; message: string };

/**
 * What the caller was sent from the upstream, and for a shadow comparison, the slow answer's body or why there is none.
 */
interface Relayed {
  status: number;
  slow?: SlowBody;
  encoding?: string;
}

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
 * engine when the request is eligible and every field reaches `min_confidence`; `POST /v1/decisions` and
 * `POST /v1/systemone` by the served Decisions API, never the upstream; everything else (those endpoints'
 * other requests, any other path) goes to the upstream untouched, with the caller's credentials, and its
 * answer is relayed as it streams. Every relayed or fast answer carries the route report in `x-system1-route`.
 */
export class OpenAiRouter {
  private readonly token?: SecretCheck;

  constructor(
    private readonly options: RouterOptions,
    private readonly deps: RouterDeps,
  ) {
    if (options.token) this.token = new SecretCheck(options.token);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `s1r_${randomUUID()}`;
    const started = this.deps.now();
    res.setHeader(SYSTEM1_REQUEST_ID_HEADER, requestId);
    const url = new URL(req.url ?? '/', 'http://router.invalid');
    const method = req.method ?? 'GET';
    const path = clip(url.pathname, MAX_DETAIL_CHARS, '…');
    const wire = DECISION_ROUTES.get(url.pathname);
    const finish = (status: number, report?: RouteReport) => {
      const route = report ? ` ${routeHeader(report)}` : '';
      this.deps.log(`${requestId} ${method} ${path} -> ${status}${route} (${this.deps.now() - started} ms)`);
    };
    // Answered before the body is read: what the client still sends is read and dropped, so it gets the answer.
    const refuse = (status: number, message: string, code: string, headers: Record<string, string> = {}) => {
      answerEarly(req, res, status, refusalBody(wire, status, message, code), headers, this.deps.bodies.maxDrainBytes);
      finish(status);
    };

    if (!this.deps.hosts.allows(req.headers.host)) {
      return refuse(
        403,
        'the Host header names a host this router does not answer to (a guard against DNS rebinding); ' +
          'add the name to [router] allowed_hosts to use it',
        'host_not_allowed',
      );
    }
    if (!this.authorised(req))
      return refuse(401, `this router needs its token in the ${TOKEN_HEADER} header`, 'system1_token');
    if (this.deps.forwarder.hop.seenIn(req.headers.via)) {
      const message =
        'this request has already passed through this router: its upstream leads back to it ' +
        '(directly or through another router); point --upstream or [router] upstream at the model API';
      return refuse(508, message, 'loop_detected', { 'x-should-retry': 'false' });
    }
    if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/'))
      return refuse(404, 'the router serves the OpenAI API under /v1 only', 'not_found');
    if (wire && !this.deps.decisions) return refuse(404, `this router does not serve ${url.pathname}`, 'not_found');
    if (wire && method !== 'POST')
      return refuse(405, `${url.pathname} takes POST only`, 'method_not_allowed', { allow: 'POST' });
    let held: HeldBody;
    try {
      held = await this.deps.bodies.read(req, res);
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      const headers: Record<string, string> = error.status === 503 ? { 'retry-after': '1' } : {};
      return refuse(error.status, error.message, BODY_ERROR_CODES[error.status], headers);
    }
    res.once('close', held.release);
    if (wire) {
      // Answered here: the app's credentials for the upstream go nowhere, and the router's threshold is not the
      // API's (it abstains only when the request or its alias asks).
      const { api, listening } = this.deps.decisions!;
      const where = listening();
      const request = { req, res, body: held.body, requestId, ...(where && { listening: where }) };
      return finish(await answerDecisions(api, wire, request, this.deps.warn));
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const call: ForwardedCall = {
      method,
      path: url.pathname.slice('/v1'.length),
      query: url.search,
      headers: req.headers,
      body: held.body,
      signal: abort.signal,
    };

    const endpoint = method === 'POST' ? ROUTED[url.pathname] : undefined;
    if (!endpoint) {
      const report = routeReport('ineligible', `${method} ${url.pathname} is not a structured-output endpoint`);
      return finish((await this.relay(call, res, report)).status, report);
    }
    if (this.options.shadow) return this.shadow(endpoint, call, res, requestId, finish);

    const attempt = await this.attemptFast(endpoint, call);
    if (attempt.completion) {
      sendJson(res, 200, attempt.completion, { [ROUTE_HEADER]: routeHeader(attempt.report) });
      return finish(200, attempt.report);
    }
    return finish((await this.relay(call, res, attempt.report)).status, attempt.report);
  }

  /** Asks both at once, serves the slow answer, and records how the fast one compared (or why it could not). */
  private async shadow(
    endpoint: Endpoint,
    call: ForwardedCall,
    res: ServerResponse,
    requestId: string,
    finish: (status: number, report: RouteReport) => void,
  ): Promise<void> {
    const [attempt, opened] = await Promise.all([this.attemptFast(endpoint, call), this.open(call)]);
    const report: RouteReport = { ...attempt.report, shadow: true };
    // The slow answer waited, unread, for the fast engine; one that ended meanwhile (cut off, or the caller
    // left) will send no event again, and relaying it would leave the caller waiting for ever.
    const gone = 'response' in opened && opened.response.destroyed;
    const answered = await this.sendBack(gone ? { status: 502, message: SLOW_ANSWER_GONE } : opened, res, report, true);
    const entry: ShadowRecord = {
      at: new Date(this.deps.now()).toISOString(),
      request_id: requestId,
      endpoint,
      ...(attempt.schema !== undefined && { schema: clip(attempt.schema, MAX_DETAIL_CHARS, '…') }),
      route: attempt.report.route,
      ...(attempt.report.detail !== undefined && { detail: attempt.report.detail }),
      min_confidence: this.options.minConfidence,
      slow_status: answered.status,
    };
    const slow = answered.slow;
    if (slow && 'unavailable' in slow) entry.slow_unavailable = slow.unavailable;
    if (attempt.fields) {
      const reading =
        slow && 'body' in slow && answered.status === 200 ? readSlowAnswer(endpoint, slow.body, answered.encoding) : {};
      if ('unavailable' in reading) entry.slow_unavailable = reading.unavailable;
      entry.fields = compareFields(attempt.fields, 'object' in reading ? reading.object : undefined);
    }
    try {
      this.deps.shadowLog.append(entry);
    } catch (error) {
      this.deps.warn(
        `${requestId} cannot write the shadow log ${this.deps.shadowLog.file} ` +
          `(${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    finish(answered.status, report);
  }

  /** Tries the fast engine; never throws for a request it cannot take. */
  private async attemptFast(endpoint: Endpoint, call: ForwardedCall): Promise<FastAttempt> {
    if (this.options.fastOff) return { report: routeReport('fast_off', this.options.fastOff) };
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
      if (error instanceof Ineligible)
        return { report: routeReport('ineligible', error.detail), schema: candidate?.schemaName };
      throw error;
    }
    const schema = candidate.schemaName;
    let result;
    try {
      result = await this.deps.decide({
        state: candidate.state,
        questions: plan.questions,
        minConfidence: this.options.minConfidence,
        signal: call.signal,
      });
    } catch (error) {
      return { report: routeReport('fast_model_error', `the fast engine failed: ${safeMessage(error)}`), schema };
    }
    let fields: FieldAnswer[];
    try {
      fields = readFieldAnswers(plan, result);
    } catch (error) {
      if (error instanceof FastAnswerError) return { report: routeReport('fast_model_error', error.detail), schema };
      throw error;
    }
    const below = fieldsBelow(fields, this.options.minConfidence);
    if (below.length > 0)
      return {
        report: routeReport('low_confidence', describeBelow(below, this.options.minConfidence)),
        schema,
        fields,
      };
    const completion = fastCompletion(endpoint, buildObject(plan.shape, fields), result.meta, this.deps.now());
    return { report: routeReport('fast'), schema, fields, completion };
  }

  /** Forwards the call untouched and relays the answer; returns the status sent. */
  private async relay(call: ForwardedCall, res: ServerResponse, report: RouteReport): Promise<Relayed> {
    return this.sendBack(await this.open(call), res, report);
  }

  private async open(call: ForwardedCall): Promise<Opened> {
    try {
      return { response: await this.deps.forwarder.open(call) };
    } catch (error) {
      if (error instanceof UpstreamError) return { status: error.status, message: error.message };
      return { status: 502, message: 'the upstream could not be reached' };
    }
  }

  /**
   * Sends the upstream's status, headers and body as they come (a stream stays a stream), with the route
   * report added. `keep`: the body is also kept, within the caps, for a shadow comparison, or else the
   * reason it could not be.
   */
  private sendBack(opened: Opened, res: ServerResponse, report: RouteReport, keep = false): Promise<Relayed> {
    const routeHeaders = { [ROUTE_HEADER]: routeHeader(report) };
    if (!('response' in opened)) {
      sendError(res, opened.status, opened.message, 'upstream_error', routeHeaders);
      return Promise.resolve({ status: opened.status, ...(keep && { slow: { unavailable: opened.message } }) });
    }
    const { response } = opened;
    const status = response.statusCode ?? 502;
    res.writeHead(status, { ...this.deps.forwarder.returnedHeaders(response.headers), ...routeHeaders });
    const encoding = headerText(response.headers['content-encoding']);
    const kept = new KeptAnswer(this.deps.keptSlowAnswers);
    if (keep) response.on('data', (chunk: Buffer) => kept.add(chunk));
    return new Promise((resolve) => {
      let settled = false;
      const settle = (slow: SlowBody) => {
        kept.release();
        if (settled) return;
        settled = true;
        resolve({ status, ...(keep && { slow, encoding }) });
      };
      response.on('end', () => settle(kept.finish()));
      // A broken upstream stream ends the caller's too, so it sees a cut answer rather than a complete-looking one.
      response.on('error', (error: NodeJS.ErrnoException) => {
        res.destroy();
        settle({ unavailable: `the slow answer failed before it was complete (${error.code ?? error.name})` });
      });
      response.on('close', () => {
        if (!response.complete) res.destroy();
        settle({ unavailable: 'the slow answer ended before it was complete' });
      });
      response.pipe(res);
    });
  }

  private authorised(req: IncomingMessage): boolean {
    if (!this.token) return true;
    return this.token.matches(headerText(req.headers[TOKEN_HEADER])?.replace(/^Bearer\s+/i, ''));
  }
}

/** A refusal's body: in the Decisions API's wire on its routes (its clients read that), else the router's. */
const refusalBody = (wire: DecisionWire | undefined, status: number, message: string, code: string) =>
  wire ? wireError(wire, status, message, { code }).body : routerError(message, code);

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function describeBelow(below: FieldAnswer[], minConfidence: number): string {
  const shown = below.slice(0, 3).map(({ id, confidence }) => `${id} at ${confidence.toFixed(2)}`);
  const more = below.length > 3 ? ` and ${below.length - 3} more` : '';
  return `below min_confidence ${minConfidence}: ${shown.join(', ')}${more}`;
}

/** The library's messages are safe to show by contract; kept to one short line. */
function safeMessage(error: unknown): string {
  if (error instanceof Error && error.message) return oneLine(error.message, 200);
  return 'unknown error';
}
