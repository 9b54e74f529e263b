import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/**
 * A server that only records what reaches it: a redirect target that must receive nothing, or an
 * HTTP(S)_PROXY that loopback calls must never go through (it sees plain requests and CONNECT tunnels).
 */
export class RecordingServer {
  readonly hits: { method: string; url: string; headers: Record<string, unknown> }[] = [];
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
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
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
