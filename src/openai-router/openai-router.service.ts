import { Inject, Injectable, Logger } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FAST_DECIDER, type FastDecider } from './fast-decider';
import { OpenAiRouter } from './openai-router';
import type { ListenOptions } from './router-options';
import { ShadowLog } from './shadow-log';
import { UpstreamForwarder } from './upstream-forwarder';

/** A router listening: its base URL (what a client's `baseURL` becomes) and how to stop it. */
export interface RunningRouter {
  baseUrl: string;
  close(): Promise<void>;
}

/** Puts the router on a socket: the one place with I/O wiring; the routing itself is in OpenAiRouter. */
@Injectable()
export class OpenAiRouterService {
  private readonly logger = new Logger('Router');

  constructor(@Inject(FAST_DECIDER) private readonly decide: FastDecider) {}

  async listen(options: ListenOptions): Promise<RunningRouter> {
    const router = new OpenAiRouter(options, {
      decide: this.decide,
      forwarder: new UpstreamForwarder(options.upstream),
      shadowLog: new ShadowLog(options.shadowLog),
      log: (line) => this.logger.log(line),
      warn: (line) => this.logger.warn(line),
      now: () => Date.now(),
    });
    const sockets = new Set<Socket>();
    const server: Server = createServer((req, res) => {
      router.handle(req, res).catch((error: unknown) => {
        // A bug, not a request problem: say so without echoing anything from the request.
        this.logger.error(`router failed on a request: ${error instanceof Error ? error.name : 'error'}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"internal router error","type":"system1_router_error","param":null,"code":"internal"}}');
        else res.destroy();
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    return {
      baseUrl: `http://${host}:${port}/v1`,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    };
  }
}
