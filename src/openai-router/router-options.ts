import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { expandHome, homeOf } from '../config/paths';
import { EndpointError, isLoopbackHost, parseEndpoint } from '../providers/http/endpoint';
import type { RouterOptions } from './openai-router';
import { upstreamIsThisRouter } from '../decisions-api/own-address';
import type { RouterLimits } from './router-limits';

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
  /** Host names callers may use besides the loopback ones and `host` (`name`, or `name:port`). */
  allowedHosts?: string[];
  /** The router's defaults unless given (tests set them small). */
  limits?: Partial<RouterLimits>;
}

/** The only place the router's token is read: an environment variable, never the file or a flag. */
export const ROUTER_TOKEN_VARIABLE = 'SYSTEM1_ROUTER_TOKEN';

/**
 * The router's settings from `[router]`, its SYSTEM1_ROUTER_* variables and the flags. Problems are returned
 * as sentences naming the key, never thrown: a broken `[router]` stops `serve-openai` before it listens.
 */
export function settleRouterOptions(
  config: LoadedConfig,
  flags: ServeFlags,
  env: Env,
): { options?: ListenOptions; problems: string[] } {
  const problems = config.errors
    .filter(({ key }) => key.startsWith('router.') || key.startsWith('SYSTEM1_ROUTER_'))
    .map(({ message }) => message);
  const settings = config.router;
  const host = flags.host ?? settings.host;
  if (!isLoopbackHost(host) && !(flags.allowNonLoopback ?? settings.allow_non_loopback)) {
    problems.push(
      `router host ${host} is not this machine: ` +
        'binding it lets other machines use the fast engine and relay through you; ' +
        'set [router] allow_non_loopback = true (or --allow-non-loopback) to allow it',
    );
  }
  let upstream: URL | undefined;
  const rawUpstream = flags.upstream ?? settings.upstream;
  try {
    // The caller's key travels to it: https unless it is on this machine.
    upstream = parseEndpoint(rawUpstream, { allowRemote: true, httpsUnlessLoopback: true });
  } catch (error) {
    problems.push(
      `router upstream ${flags.upstream !== undefined ? '(--upstream) ' : ''}` +
        `${error instanceof EndpointError ? error.message : 'is not usable'}`,
    );
  }
  const port = flags.port ?? settings.port;
  if (upstream && upstreamIsThisRouter(upstream, host, port)) {
    problems.push(
      `router upstream ${upstream.origin} is this router itself (${host} port ${port}): ` +
        "every request would come back to it without end; point it at the model's API",
    );
  }
  const token = env[ROUTER_TOKEN_VARIABLE]?.trim();
  // Set but blank is a mistake (an empty secret from a template or a script), not a request to turn the check off.
  if (token === '')
    problems.push(`${ROUTER_TOKEN_VARIABLE} is set but blank; give it a token, or unset it to run without one`);
  if (problems.length > 0 || !upstream) return { problems };
  const allowedHosts = settings.allowed_hosts;
  return {
    problems,
    options: {
      host,
      port,
      upstream,
      minConfidence: settings.min_confidence,
      shadow: flags.shadow ?? settings.shadow,
      shadowLog: expandHome(settings.shadow_log ?? '', homeOf(env)),
      ...(token ? { token } : {}),
      ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
    },
  };
}
