import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { expandHome, homeOf } from '../config/paths';
import { EndpointError, isLoopbackHost, parseEndpoint } from '../providers/http/endpoint';
import type { RouterOptions } from './openai-router';

/** `serve-openai`'s flags; each overrides its `[router]` key. */
export interface ServeFlags {
  port?: number;
  host?: string;
  upstream?: string;
  shadow?: boolean;
  allowNonLoopback?: boolean;
}

export interface ListenOptions extends RouterOptions {
  host: string;
  port: number;
}

/** The only place the router's token is read: an environment variable, never the file or a flag. */
export const ROUTER_TOKEN_VARIABLE = 'SYSTEM1_ROUTER_TOKEN';

/**
 * The router's settings from `[router]`, its SYSTEM1_ROUTER_* variables and the flags. Problems are returned
 * as sentences naming the key, never thrown: a broken `[router]` stops `serve-openai` before it listens.
 */
export function settleRouterOptions(config: LoadedConfig, flags: ServeFlags, env: Env): { options?: ListenOptions; problems: string[] } {
  const problems = config.errors.filter(({ key }) => key.startsWith('router.') || key.startsWith('SYSTEM1_ROUTER_')).map(({ message }) => message);
  const settings = config.router;
  const host = flags.host ?? settings.host;
  if (!isLoopbackHost(host) && !(flags.allowNonLoopback ?? settings.allow_non_loopback)) {
    problems.push(`router host ${host} is not this machine: binding it lets other machines use the fast engine and relay through you; set [router] allow_non_loopback = true (or --allow-non-loopback) to allow it`);
  }
  let upstream: URL | undefined;
  const rawUpstream = flags.upstream ?? settings.upstream;
  try {
    // The caller's key travels to it: https unless it is on this machine.
    upstream = parseEndpoint(rawUpstream, { allowRemote: true, httpsUnlessLoopback: true });
  } catch (error) {
    problems.push(`router upstream ${flags.upstream !== undefined ? '(--upstream) ' : ''}${error instanceof EndpointError ? error.message : 'is not usable'}`);
  }
  if (problems.length > 0 || !upstream) return { problems };
  const token = env[ROUTER_TOKEN_VARIABLE]?.trim();
  return {
    problems,
    options: {
      host,
      port: flags.port ?? settings.port,
      upstream,
      minConfidence: settings.min_confidence,
      shadow: flags.shadow ?? settings.shadow,
      shadowLog: expandHome(settings.shadow_log ?? '', homeOf(env)),
      ...(token ? { token } : {}),
    },
  };
}
