import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Answers with `body` as JSON, its length declared, so the client reads exactly one whole answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
