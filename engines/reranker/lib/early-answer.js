'use strict';
/**
 * Answering a request whose body is not (or not wholly) read, without losing the answer: the gateway's
 * src/common/http/early-answer.ts, restated for this package (it shares no code with the gateway).
 */

/** After answering early, at most this much more of the body is read and dropped before the socket is cut. */
const MAX_DRAIN_BYTES = 8 * 1024 * 1024;

/** Requests told to send their body (100 Continue written): a client waiting for that sends nothing before. */
const invited = new WeakSet();

/**
 * Lets a client that waits for 100 Continue send its body, once the server means to read it; the server
 * answers 'checkContinue' itself, so a request refused before its body is read costs no upload.
 */
function inviteBody(request, response) {
  if (!/100-continue/i.test(request.headers.expect ?? '') || invited.has(request)) return;
  invited.add(request);
  response.writeContinue();
}

/**
 * A request that announced no body (no Transfer-Encoding, no or a zero Content-Length, RFC 9112 6.3); its
 * `complete` flag is still false while the 'request' handler runs.
 */
function hasNoBody(request) {
  return request.headers['transfer-encoding'] === undefined && Number(request.headers['content-length'] ?? 0) === 0;
}

/**
 * Sends `status` with the JSON text `text`. With nothing of the request left unread the connection stays
 * open. Otherwise it is closed, and closing a socket with unread bytes in it sends a reset, which loses the
 * answer to a client still uploading (EPIPE, ECONNRESET): so the answer is written at once, what the client
 * still sends is read and dropped (up to `maxDrainBytes`, past which the socket is cut), and only then is
 * the response ended, which closes the connection cleanly.
 */
function answerEarly(request, response, status, text, headers, maxDrainBytes = MAX_DRAIN_BYTES) {
  const answer = { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if ((request.complete || hasNoBody(request)) && !request.destroyed) {
    response.writeHead(status, answer);
    response.end(text);
    return;
  }
  response.writeHead(status, { ...answer, connection: 'close' });
  // A client still waiting for 100 Continue sends no body, so there is nothing left to drop.
  const waitingToSend = /100-continue/i.test(request.headers.expect ?? '') && !invited.has(request);
  if (request.destroyed || waitingToSend) {
    response.end(text);
    return;
  }
  response.write(text);
  let dropped = 0;
  request.removeAllListeners('data');
  request.on('data', (chunk) => {
    dropped += chunk.length;
    if (dropped > maxDrainBytes) request.socket.destroy();
  });
  request.on('error', () => undefined);
  request.once('end', () => response.end());
  request.resume();
}

module.exports = { answerEarly, inviteBody, MAX_DRAIN_BYTES };
