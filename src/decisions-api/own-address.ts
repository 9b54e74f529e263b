import { urlHostname } from '../common/http/host-guard';
import { isLoopbackHost } from '../providers/http/endpoint';

/** Addresses that bind every interface, loopback included. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '[::]']);

const defaultPort = (url: URL) => (url.protocol === 'https:' ? 443 : 80);

/**
 * Whether the upstream is this server's own address (the router's upstream, an engine of the served Decisions
 * API), so each request would be sent back to the server, which would send it on again, without end. Only a
 * loopback upstream is taken for one (a server reached elsewhere would need https, which neither speaks);
 * `localhost` and a server bound to every interface match any loopback address on the same port.
 */
export function upstreamIsThisRouter(upstream: URL, host: string, port: number): boolean {
  if (port === 0 || Number(upstream.port || defaultPort(upstream)) !== port || !isLoopbackHost(upstream.hostname))
    return false;
  const bound = urlHostname(host);
  if (bound === undefined || EVERY_INTERFACE.has(bound) || bound === 'localhost' || upstream.hostname === 'localhost')
    return true;
  return bound === upstream.hostname;
}
