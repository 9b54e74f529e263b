import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** After answering early, at most this much more of the request body is read and dropped before the socket is cut. */
export const MAX_DRAIN_BYTES = 8 * 1024 * 1024;

/**
 * Answers a request whose body will not be read (refused before reading it, or over the size cap), then
 * closes the connection without losing the answer. Closing a socket with unread bytes in it sends a reset,
 * and a client still uploading (curl, Node's http) then loses the answer to EPIPE or ECONNRESET; so the
 * whole answer is written at once, what the client still sends is read and dropped (up to `maxDrainBytes`,
 * past which the socket is cut), and only then is the response ended, which closes the connection cleanly.
 */
export function answerAndClose(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}, maxDrainBytes = MAX_DRAIN_BYTES): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
  // A client waiting for 100 Continue (never sent) sends no body; one that sent it all has nothing left to drop.
  const waitingToSend = /100-continue/i.test(req.headers.expect ?? '');
  if (req.complete || req.destroyed || waitingToSend) {
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
