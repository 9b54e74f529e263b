import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { isLocalhostName, LOCALHOST_ADDRESSES, LOOPBACK_NAME } from '../../common/http/localhost';

/**
 * Whether a host is this machine: a literal loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z) or the
 * exact name `localhost`. It takes a URL's hostname, which the parser has already normalised (`127.1`,
 * `0x7f000001` and `2130706433` all become `127.0.0.1`), or a bind address as written; either way the
 * answer never depends on DNS, and what is not certain is not loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (host.toLowerCase() === LOOPBACK_NAME) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    const canonical = canonicalIpv6(host);
    return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
  }
  return false;
}

/** An IPv6 address in the URL parser's canonical form (`0:0::1` → `::1`, `::ffff:127.0.0.1` → `::ffff:7f00:1`). */
function canonicalIpv6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return ''; // a zone id (fe80::1%eth0) or the like: not a loopback address we can vouch for
  }
}

/**
 * A `lookup` for node:net that answers `localhost` with 127.0.0.1 then ::1 (Node tries both), so the
 * connection goes to the literal address while the request keeps `Host: localhost:PORT`. Any other name is
 * refused: this lookup is only ever given for `localhost` (see {@link connectLookup}).
 */
export const localhostLookup: LookupFunction = (hostname, options, callback) => {
  process.nextTick(() => {
    if (!isLocalhostName(hostname)) {
      callback(Object.assign(new Error(`${hostname} is not localhost`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    const family =
      options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const addresses = LOCALHOST_ADDRESSES.filter((entry) => family === 0 || entry.family === family).map((entry) => ({
      ...entry,
    }));
    if (options.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};

/** The `lookup` to connect to `url` with: ours for `localhost`, none (the system's) for anything else. */
export function connectLookup(url: URL): LookupFunction | undefined {
  return isLocalhostName(url.hostname) ? localhostLookup : undefined;
}

export class EndpointError extends Error {}

export interface EndpointRules {
  allowRemote: boolean;
  /** Hosted APIs carry a key: plain http is allowed only on loopback. */
  httpsUnlessLoopback?: boolean;
}

/** Parses an engine endpoint and applies the loopback rule; the message names what to change. */
export function parseEndpoint(raw: string, { allowRemote, httpsUnlessLoopback = false }: EndpointRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointError(`must be an http(s) URL such as http://127.0.0.1:8765, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EndpointError(`must use http or https, got ${url.protocol.replace(':', '')}`);
  }
  if (url.username || url.password)
    throw new EndpointError('must not carry credentials; keys come from environment variables');
  const loopback = isLoopbackHost(url.hostname);
  if (!loopback && !allowRemote) {
    throw new EndpointError(
      `points at ${url.hostname}, which is not this machine${dottedNameHint(url.hostname)}; ` +
        'set allow_remote = true to allow it',
    );
  }
  if (!loopback && httpsUnlessLoopback && url.protocol !== 'https:') {
    throw new EndpointError('must use https unless it is on this machine (the key would travel in clear text)');
  }
  return url;
}

/** Why `localhost.` is not this machine, for the one spelling that surprises people. */
function dottedNameHint(hostname: string): string {
  return hostname.endsWith('.')
    ? ' (a name ending in a dot is looked up in DNS; write localhost or 127.0.0.1 for this machine)'
    : '';
}

/** Joins an endpoint and an API path, keeping any path prefix the endpoint has (`/proxy/laya` + `/health`). */
export function endpointUrl(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}
