import { createServer, type Server, STATUS_CODES } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';

/**
 * A server that only records what reaches it: a redirect target that must receive nothing, or an
 * HTTP(S)_PROXY that loopback calls must never go through (it sees plain requests and CONNECT tunnels, and
 * refuses every tunnel with `connectStatus`: 502 by default, 403 or 407 to play a proxy's policy refusal).
 */
export class RecordingServer {
  readonly hits: { method: string; url: string; headers: Record<string, unknown> }[] = [];
  /** The status every CONNECT is answered with (never 200: nothing is tunnelled). */
  connectStatus = 502;
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<URL> {
    const server = createServer((req, res) => {
      this.hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('recording server');
    });
    server.on('connect', (req, socket) => {
      this.hits.push({ method: 'CONNECT', url: req.url ?? '', headers: req.headers });
      const reason = STATUS_CODES[this.connectStatus] ?? 'Refused';
      // A policy page in the body, as real proxies send: it must never be shown as the target's answer.
      const body = JSON.stringify({ detail: { message: `proxy policy: ${reason}` } });
      socket.end(
        `HTTP/1.1 ${this.connectStatus} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
