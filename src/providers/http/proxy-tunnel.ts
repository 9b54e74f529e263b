import type { ClientRequest } from 'node:http';
import type { Agent } from 'node:https';
import type { Socket } from 'node:net';
import type { HttpsProxyAgent as HttpsProxyAgentType } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { isLoopbackHost } from './endpoint';

/**
 * The system proxy refused the tunnel, or could not be reached: the request, and the key in it, never left
 * this machine. The message names the proxy by host and port only (its URL can carry credentials) and
 * gives its status, never its reason phrase or body, which the proxy chooses.
 */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
  constructor(
    message: string,
    /** For callers that show only an error's code: which of the two failures it was. */
    readonly code: 'PROXY_TUNNEL_REFUSED' | 'PROXY_UNREACHABLE',
  ) {
    super(message);
  }
}

/**
 * The agent for reaching `url` through the system proxy (HTTPS_PROXY, NO_PROXY, ...), or none to go direct.
 * Loopback always goes direct (HTTP_PROXY is set on some machines and would receive a key meant for this
 * machine), and so does plain http; https goes only as a CONNECT tunnel, which the proxy cannot read, never
 * as a request the proxy forwards. A refused tunnel fails the request with a {@link ProxyTunnelError}.
 */
export function proxyTunnelFor(url: URL): Agent | undefined {
  if (isLoopbackHost(url.hostname) || url.protocol !== 'https:') return undefined;
  const proxy = getProxyForUrl(url.href);
  if (!proxy) return undefined;
  return new (tunnelAgentClass())(proxy);
}

/** What https-proxy-agent passes to `connect` (the target's host and port among it). */
type ConnectOptions = Parameters<HttpsProxyAgentType<string>['connect']>[1];

let TunnelAgent: (new (proxy: string) => Agent) | undefined;

/**
 * https-proxy-agent replays a refused CONNECT's answer (a proxy's 403 page, say) as if the target had sent
 * it, so a proxy policy would read as the engine refusing the key. This subclass turns it into an error.
 * Built on first use: the library is loaded only when a proxy is configured.
 */
function tunnelAgentClass(): new (proxy: string) => Agent {
  if (TunnelAgent) return TunnelAgent;
  const { HttpsProxyAgent } = require('https-proxy-agent') as { HttpsProxyAgent: typeof HttpsProxyAgentType };
  class RefusalAwareAgent extends HttpsProxyAgent<string> {
    override async connect(req: ClientRequest, opts: ConnectOptions): Promise<Socket> {
      const target = `${opts.host}:${opts.port}`;
      let refusedWith: number | undefined;
      req.once('proxyConnect', ({ statusCode }: { statusCode: number }) => {
        if (statusCode !== 200) refusedWith = statusCode;
      });
      let socket: Socket;
      try {
        socket = await super.connect(req, opts);
      } catch (error) {
        // Only the code: the socket's message could quote the proxy URL.
        const code = (error as { code?: unknown }).code;
        throw new ProxyTunnelError(
          `could not reach the proxy ${this.where()} to tunnel to ${target} ` +
            `(${typeof code === 'string' ? code : 'connection failed'}); ` +
            'the request was not sent: check HTTPS_PROXY',
          'PROXY_UNREACHABLE',
        );
      }
      if (refusedWith !== undefined) {
        socket.destroy();
        throw new ProxyTunnelError(
          `the proxy ${this.where()} refused to open a tunnel to ${target} (HTTP ${refusedWith}); ` +
            "the request was not sent: check HTTPS_PROXY and NO_PROXY, or the proxy's rules",
          'PROXY_TUNNEL_REFUSED',
        );
      }
      return socket;
    }

    /** `host:port` of the proxy, without the credentials its URL may carry. */
    private where(): string {
      return `${this.proxy.hostname}:${this.proxy.port || (this.proxy.protocol === 'https:' ? 443 : 80)}`;
    }
  }
  TunnelAgent = RefusalAwareAgent;
  return TunnelAgent;
}
