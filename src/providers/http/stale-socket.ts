import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Watches one outgoing request for the failure of a request the server never handled: it went out on a
 * kept-alive socket the server had already closed while idle (its keep-alive timeout ran out as this side
 * reused it). Node marks the reuse (`reusedSocket`); the socket then fails with a reset or a hang-up
 * (ECONNRESET, or EPIPE while writing) before any byte of the answer arrived. Such a request may be sent
 * again, once, on a fresh connection. A failure after the first byte of an answer, or on a new connection,
 * is the server's own and is never repeated. (A server that read the request and dropped a reused
 * connection without a byte of answer looks the same, and may see the request twice.)
 */
export function watchForStaleSocket(request: ClientRequest): (error: unknown) => boolean {
  let socket: Socket | undefined;
  let readBefore = 0;
  request.once('socket', (assigned: Socket) => {
    socket = assigned;
    readBefore = assigned.bytesRead;
  });
  return (error) => {
    const code = (error as { code?: unknown } | undefined)?.code;
    return (
      request.reusedSocket &&
      socket !== undefined &&
      socket.bytesRead === readBefore &&
      (code === 'ECONNRESET' || code === 'EPIPE')
    );
  };
}

/** A failure {@link watchForStaleSocket} recognised; `failure` is what to report if it is not sent again. */
export class StaleSocketError<Failure extends Error = Error> extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}
