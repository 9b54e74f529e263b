import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A server whose keep-alive timeout runs out exactly as the client reuses a connection: the second and later
 * requests on a connection close it (`close`: a FIN, `reset`: an RST) unread and unanswered, so each
 * connection answers one request. Deterministic, where a real timeout races the client.
 */
export class ReusedConnectionCloser {
  /** How to close (off by default). */
  mode?: 'close' | 'reset';
  /** Requests lost this way: the server never handled them. */
  drops = 0;
  private readonly served = new WeakMap<Socket, number>();

  /** Counts the request on its connection; true when it was closed instead (the server must not answer it). */
  dropped(req: IncomingMessage): boolean {
    const earlier = this.served.get(req.socket) ?? 0;
    this.served.set(req.socket, earlier + 1);
    if (!this.mode || earlier === 0) return false;
    this.drops++;
    if (this.mode === 'reset') req.socket.resetAndDestroy();
    else req.socket.destroy();
    return true;
  }
}
