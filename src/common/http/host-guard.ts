/** Every loopback name a local client may use for a server bound to loopback. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A host as a URL spells it: lower case, IPv6 in brackets, numeric forms of IPv4 normalised; undefined if unusable. */
export function urlHostname(host: string): string | undefined {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return undefined;
  }
}

/** `name`, `name:port`, `[v6]:port` as a URL reads them; undefined for anything a Host header cannot be. */
export function hostAndPort(text: string): { hostname: string; port?: number } | undefined {
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

/**
 * Which `Host` headers a local server answers: its loopback names and the address it was bound to, on its
 * port, and the names the user allowed (`name` on any port, `name:port` on that one). A web page whose
 * name an attacker has pointed at 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
 */
export class HostGuard {
  private readonly allowed = new Set<string>();
  private readonly anyPort = new Set<string>();

  constructor(boundHost: string, port: number, extraHosts: readonly string[] = []) {
    for (const name of [...LOOPBACK_NAMES, boundHost]) {
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

/** An origin as browsers send it (`scheme://host[:port]`, default port dropped); undefined if unusable. */
export function normalisedOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Which `Origin` headers a local server answers (the MCP spec's rule against DNS rebinding): none at all (a
 * client that is not a browser), its own address under each loopback name, and the origins the user allowed.
 * A page elsewhere (another port of this machine included) is refused, `null` too.
 */
export class OriginGuard {
  private readonly allowed = new Set<string>();

  constructor(boundHost: string, port: number, extraOrigins: readonly string[] = []) {
    for (const name of [...LOOPBACK_NAMES, boundHost]) {
      const hostname = urlHostname(name);
      const origin = hostname === undefined ? undefined : normalisedOrigin(`http://${hostname}:${port}`);
      if (origin !== undefined) this.allowed.add(origin);
    }
    for (const entry of extraOrigins) {
      const origin = normalisedOrigin(entry);
      if (origin !== undefined) this.allowed.add(origin);
    }
  }

  allows(originHeader: string | undefined): boolean {
    if (originHeader === undefined) return true;
    const origin = normalisedOrigin(originHeader);
    return origin !== undefined && this.allowed.has(origin);
  }
}
