import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../common/http/send-json';
import type { DecisionsApi } from '../decisions-api/decisions-api';
import { type DecisionWire, wireError } from '../decisions-api/wire-reply';
import type { ToolName } from '../mcp/tool-list';

/** The served Decisions API's routes on serve-http, each with its wire. */
export const DECISION_ROUTES: ReadonlyMap<string, DecisionWire> = new Map([
  ['/v1/decisions', 'openai'],
  ['/v1/systemone', 'systemone'],
]);

/**
 * The tool whose permission a decisions request needs: typed questions about one state, as `system1_ask`
 * asks them. A caller's `tools` and OAuth scopes say whether it may, and each request counts against its rate.
 */
export const DECISIONS_TOOL: ToolName = 'system1_ask';

/** One request to a decisions route, its body read. */
export interface DecisionsHttpRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  requestId: string;
  listening?: { host: string; port: number };
}

/**
 * Parses the body as JSON and answers with the wire's reply. A body that is not JSON is the wire's 400; a
 * fault of our own is its 500, named in the log by class only (its text may carry request data).
 */
export async function answerDecisions(
  api: Pick<DecisionsApi, 'answer'>,
  wire: DecisionWire,
  { req, res, body, requestId, listening }: DecisionsHttpRequest,
  warn: (line: string) => void,
): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    const refused = wireError(wire, 400, 'the request body is not JSON');
    return sendJson(res, refused.status, refused.body);
  }
  let reply;
  try {
    reply = await api.answer(wire, parsed, { requestId, headers: req.headers, ...(listening && { listening }) });
  } catch (error) {
    warn(`${requestId} a decisions request failed: ${error instanceof Error ? error.name : typeof error}`);
    reply = wireError(wire, 500, `the server failed on this request; see its log under ${requestId}`);
  }
  sendJson(res, reply.status, reply.body, reply.headers);
}
