import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** After answering early, at most this much more of the request body is read and dropped before the socket is cut. */
export const MAX_DRAIN_BYTES = 8 * 1024 * 1024;

/** Requests told "100 Continue": their clients are uploading, so an early answer must drain like any other. */
const continued = new WeakSet<IncomingMessage>();

/** Tells a client that asked for 100 Continue to send its body now (a no-op for one that did not ask). */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (!/100-continue/i.test(req.headers.expect ?? '')) return;
  continued.add(req);
  res.writeContinue();
}

/**
 * Answers a request before or instead of reading its body (refused, or over the size cap) without losing
 * the answer. With nothing left unread the connection stays open. Otherwise it is closed, and closing a
 * socket with unread bytes in it sends a reset,
 * and a client still uploading (curl, Node's http) then loses the answer to EPIPE or ECONNRESET; so the
 * whole answer is written at once, what the client still sends is read and dropped (up to `maxDrainBytes`,
 * past which the socket is cut), and only then is the response ended, which closes the connection cleanly.
 * `maxDrainBytes` 0 drops nothing and closes at once: for a client that has stopped sending.
 */
export function answerEarly(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
  maxDrainBytes = MAX_DRAIN_BYTES,
): void {
  const text = JSON.stringify(body);
  const answer = { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if ((req.complete || hasNoBody(req)) && !req.destroyed) {
    // Nothing of the request is left unread (a GET, or a body already read): the connection stays usable,
    // and a request the client pipelined behind this one (as MCP clients do after the GET stream) is kept.
    res.writeHead(status, answer);
    res.end(text);
    return;
  }
  res.writeHead(status, { ...answer, connection: 'close' });
  // A client still waiting for 100 Continue sends no body, so there is nothing left to drop.
  const waitingToSend = /100-continue/i.test(req.headers.expect ?? '') && !continued.has(req);
  if (req.destroyed || waitingToSend || maxDrainBytes === 0) {
    res.end(text);
    return;
  }
  res.write(text);
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxDrainBytes) req.socket.destroy();
  });
  req.on('error', () => undefined);
  req.once('end', () => res.end());
  req.resume();
}

/**
 * A request that announced no body (no Transfer-Encoding, no or a zero Content-Length, RFC 9112 6.3). Its
 * `complete` flag is still false while the 'request' handlers run, though nothing will follow its headers.
 */
const hasNoBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
