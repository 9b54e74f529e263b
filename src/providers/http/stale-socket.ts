import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Watches one outgoing request for the one failure that proves the server never saw it: the request went out
 * on a kept-alive socket the server had already closed while idle (its keep-alive timeout ran out as this
 * side reused it). Node marks the reuse (`reusedSocket`); the socket then fails with a reset or a hang-up
 * (ECONNRESET, or EPIPE while writing) before any byte of the answer arrived. Such a request may be sent
 * again, once, on a fresh connection. A failure after the first byte of an answer, or on a new connection,
 * is the server's own and is never repeated.
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
    return request.reusedSocket && socket !== undefined && socket.bytesRead === readBefore && (code === 'ECONNRESET' || code === 'EPIPE');
  };
}
