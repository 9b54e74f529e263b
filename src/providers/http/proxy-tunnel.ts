import type { Agent } from 'node:https';
import type { HttpsProxyAgent as HttpsProxyAgentType } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { isLoopbackHost } from './endpoint';

/**
 * The agent for reaching `url` through the system proxy (HTTPS_PROXY, NO_PROXY, ...), or none to go direct.
 * Loopback always goes direct (HTTP_PROXY is set on some machines and would receive a key meant for this
 * machine), and so does plain http; https goes only as a CONNECT tunnel, which the proxy cannot read, never
 * as a request the proxy forwards.
 */
export function proxyTunnelFor(url: URL): Agent | undefined {
  if (isLoopbackHost(url.hostname) || url.protocol !== 'https:') return undefined;
  const proxy = getProxyForUrl(url.href);
  if (!proxy) return undefined;
  const { HttpsProxyAgent } = require('https-proxy-agent') as { HttpsProxyAgent: typeof HttpsProxyAgentType };
  return new HttpsProxyAgent(proxy);
}
