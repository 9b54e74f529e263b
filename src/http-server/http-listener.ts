import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpGateway, MCP_PATH } from './http-gateway';
import { warnOnDrops } from '../common/http/connection-cap';
import { HostGuard, OriginGuard } from '../common/http/host-guard';
import { errorText } from '../logging/process-failures';
import type { HttpLimits } from './http-options';

/** At most one "connections dropped" warning this often, however many are dropped. */

export interface ListenSettings {
  host: string;
  port: number;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  limits: HttpLimits;
}

/** A server listening: where, and how to stop it. */
export interface Listening {
  /** `http://host:port/mcp`, what clients register. */
  url: string;
  port: number;
  /**
   * Stops accepting connections at once and refuses new requests on open ones (503, `/readyz` too), waits
   * for the requests in flight to be answered for at most `boundMs`, then closes every connection. Resolves
   * with the number of requests cut off unanswered.
   */
  drain(boundMs: number): Promise<number>;
}

/**
 * Puts the gateway on a socket with the limits that keep slow or greedy clients from holding it: header,
 * request and keep-alive timeouts enforced by Node itself, and a connection cap.
 */
export async function listen(
  gateway: HttpGateway,
  settings: ListenSettings,
  warn: (line: string) => void,
): Promise<Listening> {
  const { limits } = settings;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    gateway.handle(req, res).catch((error: unknown) => {
      // A bug, not a request problem: say so in the log, never in the answer.
      warn(`serve-http failed on a request: ${errorText(error)}`);
      if (!res.headersSent)
        res
          .writeHead(500, { 'content-type': 'application/json', connection: 'close' })
          .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error; see the server log"}}');
      else res.destroy();
    });
  };
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node looks for requests past their time this often (30 s by default, longer than the timeouts).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 2)),
    },
    handle,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // Handled like any request: the body reader sends 100 Continue only once the request passed every check.
  server.on('checkContinue', handle);
  warnOnDrops(server, limits.maxConnections, warn);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  gateway.guard(
    new HostGuard(settings.host, port, settings.allowedHosts),
    new OriginGuard(settings.host, port, settings.allowedOrigins),
    { host: settings.host, port },
  );
  const host = settings.host.includes(':') && !settings.host.startsWith('[') ? `[${settings.host}]` : settings.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    port,
    drain: async (boundMs) => {
      const idle = gateway.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)))]);
      clearTimeout(timer);
      const cutOff = gateway.inFlight;
      server.closeAllConnections();
      await closed;
      return cutOff;
    },
  };
}
