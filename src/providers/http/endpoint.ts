import { isIP } from 'node:net';

/**
 * Whether a URL's host is this machine. Decided on the parsed URL, which already normalises the spellings
 * an attacker or a typo might use (`127.1`, `0x7f000001`, `2130706433` all become `127.0.0.1`), so the
 * check never depends on DNS.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === 'localhost.') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(host);
  return false;
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
  if (url.username || url.password) throw new EndpointError('must not carry credentials; keys come from environment variables');
  const loopback = isLoopbackHost(url.hostname);
  if (!loopback && !allowRemote) {
    throw new EndpointError(`points at ${url.hostname}, which is not this machine; set allow_remote = true to allow it`);
  }
  if (!loopback && httpsUnlessLoopback && url.protocol !== 'https:') {
    throw new EndpointError('must use https unless it is on this machine (the key would travel in clear text)');
  }
  return url;
}

/** Joins an endpoint and an API path, keeping any path prefix the endpoint has (`/proxy/laya` + `/health`). */
export function endpointUrl(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}
