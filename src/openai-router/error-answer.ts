import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An error in the OpenAI API's own shape, so clients raise their usual exception. */
export const routerError = (message: string, code: string) => ({ error: { message, type: 'system1_router_error', param: null, code } });

export function sendError(res: ServerResponse, status: number, message: string, code: string, headers: OutgoingHttpHeaders = {}): void {
  sendJson(res, status, routerError(message, code), headers);
}
