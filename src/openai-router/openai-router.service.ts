import { Inject, Injectable, Logger } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { literalAddress } from '../common/http/localhost';
import type { DecisionsApi } from '../decisions-api/decisions-api';
import { ByteBudget } from './byte-budget';
import { FAST_DECIDER, type FastDecider } from './fast-decider';
import { OpenAiRouter } from './openai-router';
import { warnOnDrops } from '../common/http/connection-cap';
import { HostGuard } from '../common/http/host-guard';
import { RequestBodies } from './router-request-body';
import { routerLimits } from './router-limits';
import type { ListenOptions } from './router-options';
import { ShadowLog } from './shadow-log';
import { UpstreamForwarder } from './upstream-forwarder';

/** A router listening: its base URL (what a client's `baseURL` becomes) and how to stop it. */
export interface RunningRouter {
  baseUrl: string;
  close(): Promise<void>;
}

/** At most one "connections dropped" warning this often, however many are dropped. */

/** Puts the router on a socket: the one place with I/O wiring; the routing itself is in OpenAiRouter. */
@Injectable()
export class OpenAiRouterService {
  private readonly logger = new Logger('Router');

  constructor(@Inject(FAST_DECIDER) private readonly decide: FastDecider) {}

  /** Listens with these options; `decisionsApi` answers `/v1/decisions` and `/v1/systemone` (else they are 404). */
  async listen(options: ListenOptions, decisionsApi?: Pick<DecisionsApi, 'answer'>): Promise<RunningRouter> {
    const limits = routerLimits(options.limits);
    // The port is known once bound (0 picks one); until then no Host is allowed.
    let hosts: HostGuard | undefined;
    let bound: { host: string; port: number } | undefined;
    const router = new OpenAiRouter(options, {
      decide: this.decide,
      forwarder: new UpstreamForwarder(options.upstream),
      shadowLog: new ShadowLog(options.shadowLog),
      bodies: new RequestBodies(limits),
      keptSlowAnswers: new ByteBudget(limits.maxKeptSlowBytes),
      hosts: { allows: (host) => hosts?.allows(host) ?? false },
      ...(decisionsApi && { decisions: { api: decisionsApi, listening: () => bound } }),
      log: (line) => this.logger.log(line),
      warn: (line) => this.logger.warn(line),
      now: () => Date.now(),
    });
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      router.handle(req, res).catch((error: unknown) => {
        // A bug, not a request problem: say so without echoing anything from the request.
        this.logger.error(`router failed on a request: ${error instanceof Error ? error.name : 'error'}`);
        if (!res.headersSent)
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(
              '{"error":{"message":"internal router error",' +
                '"type":"system1_router_error","param":null,"code":"internal"}}',
            );
        else res.destroy();
      });
    };
    // Slow clients are timed out by the server itself, so a few dozen idle sockets cannot hold it.
    const server: Server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: limits.checkIntervalMs,
      },
      handle,
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.maxConnections = limits.maxConnections;
    // Handled like any request: the body reader sends 100 Continue only once it has room for the body.
    server.on('checkContinue', handle);
    warnOnDrops(server, limits.maxConnections, (line) => this.logger.warn(line));
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Bound to the literal address: `--host localhost` must not depend on what the resolver says.
      server.listen(options.port, literalAddress(options.host), () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    hosts = new HostGuard(options.host, port, options.allowedHosts);
    bound = { host: options.host, port };
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
