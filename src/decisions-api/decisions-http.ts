import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../common/http/send-json';
import type { DecisionsApi } from './decisions-api';
import { type DecisionWire, wireError } from './wire-reply';

/** The served Decisions API's routes, each with its wire: the same on serve-http and serve-openai. */
export const DECISION_ROUTES: ReadonlyMap<string, DecisionWire> = new Map([
  ['/v1/decisions', 'openai'],
  ['/v1/systemone', 'systemone'],
]);

/**
 * Headers that carry the caller's credentials for the server it called (serve-http's token, the router's
 * token, or the app's key for the model API behind a router). The API reads none of them: leaving them out of
 * what it is handed means no change to it can pass one on to an engine or into a log.
 */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-system1-token',
]);

/** One request to a decisions route, its body read. */
export interface DecisionsHttpRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  requestId: string;
  /** The address this server is bound to, so that no engine there is asked (it would be this server). */
  listening?: { host: string; port: number };
}

/**
 * Parses the body as JSON and answers with the wire's reply; returns the status sent. A body that is not JSON
 * is the wire's 400; a fault of our own is its 500, named in the log by class only (its text may carry request
 * data).
 */
export async function answerDecisions(
  api: Pick<DecisionsApi, 'answer'>,
  wire: DecisionWire,
  { req, res, body, requestId, listening }: DecisionsHttpRequest,
  warn: (line: string) => void,
): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    const refused = wireError(wire, 400, 'the request body is not JSON');
    sendJson(res, refused.status, refused.body);
    return refused.status;
  }
  let reply;
  try {
    const headers = withoutCredentials(req.headers);
    reply = await api.answer(wire, parsed, { requestId, headers, ...(listening && { listening }) });
  } catch (error) {
    warn(`${requestId} a decisions request failed: ${error instanceof Error ? error.name : typeof error}`);
    reply = wireError(wire, 500, `the server failed on this request; see its log under ${requestId}`);
  }
  sendJson(res, reply.status, reply.body, reply.headers);
  return reply.status;
}

function withoutCredentials(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name)));
}
