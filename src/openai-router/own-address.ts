import { isLoopbackHost } from '../providers/http/endpoint';

/** Addresses that bind every interface, loopback included. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '[::]']);

/** A host as a URL spells it: lower case, IPv6 in brackets, numeric forms of IPv4 normalised; undefined if unusable. */
function urlHostname(host: string): string | undefined {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return undefined;
  }
}

const defaultPort = (url: URL) => (url.protocol === 'https:' ? 443 : 80);

/**
 * Whether the upstream is this router's own address, so each request would be sent back to the router,
 * which would send it on again, without end. Only a loopback upstream can be (elsewhere it must be https,
 * which the router does not speak); `localhost` and a router bound to every interface match any loopback
 * address on the same port.
 */
export function upstreamIsThisRouter(upstream: URL, host: string, port: number): boolean {
  if (port === 0 || Number(upstream.port || defaultPort(upstream)) !== port || !isLoopbackHost(upstream.hostname)) return false;
  const bound = urlHostname(host);
  if (bound === undefined || EVERY_INTERFACE.has(bound) || bound === 'localhost' || upstream.hostname === 'localhost') return true;
  return bound === upstream.hostname;
}

/**
 * Which `Host` headers the router answers: its loopback names and the address it was bound to, on its
 * port, and the names the user allowed (`name` on any port, `name:port` on that one). A web page whose
 * name an attacker has pointed at 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
 */
export class HostGuard {
  private readonly allowed = new Set<string>();
  private readonly anyPort = new Set<string>();

  constructor(boundHost: string, port: number, extraHosts: readonly string[] = []) {
    for (const name of ['127.0.0.1', 'localhost', '[::1]', boundHost]) {
      const hostname = urlHostname(name);
      if (hostname !== undefined) this.allowed.add(`${hostname}:${port}`);
    }
    for (const entry of extraHosts) {
      const parsed = hostAndPort(entry);
      if (!parsed) continue;
      if (parsed.port === undefined) this.anyPort.add(parsed.hostname);
      else this.allowed.add(`${parsed.hostname}:${parsed.port}`);
    }
  }

  allows(hostHeader: string | undefined): boolean {
    const parsed = hostHeader === undefined ? undefined : hostAndPort(hostHeader);
    if (!parsed) return false;
    return this.anyPort.has(parsed.hostname) || this.allowed.has(`${parsed.hostname}:${parsed.port ?? 80}`);
  }
}

/** `name`, `name:port`, `[v6]:port` as a URL reads them; undefined for anything a Host header cannot be. */
function hostAndPort(text: string): { hostname: string; port?: number } | undefined {
  if (text === '' || /[\s/?#@\\]/.test(text)) return undefined;
  try {
    const url = new URL(`http://${text}`);
    // The URL drops ":80" as the default; a Host header that spelt it out still named port 80.
    const port = url.port !== '' ? Number(url.port) : /:\d+$/.test(text) ? 80 : undefined;
    return { hostname: url.hostname, ...(port !== undefined && { port }) };
  } catch {
    return undefined;
  }
}
