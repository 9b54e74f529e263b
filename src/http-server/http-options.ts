import type { HttpOAuthSettings } from '../config/config-keys';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { MAX_LINE_BYTES } from '../mcp/stdin-guard';
import { isLoopbackHost } from '../providers/http/endpoint';
import { CallerPolicies } from './callers/caller-policy';
import { CallerTokens, HTTP_TOKEN_VARIABLE } from './callers/caller-tokens';

export { HTTP_TOKEN_VARIABLE };

/** `serve-http`'s flags; each overrides its `[http]` key. */
export interface ServeHttpFlags {
  host?: string;
  port?: number;
}

/** How much the server takes from its clients: bytes, requests, time and sockets (`[http]` keys). */
export interface HttpLimits {
  maxBodyBytes: number;
  /** Requests being answered at once; past it 503 with Retry-After. */
  maxInFlight: number;
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** A body with no byte for this long is cut off with 408. */
  bodyIdleTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Host names callers may use besides the loopback ones and `host` (`name`, or `name:port`). */
  allowedHosts: string[];
  /** Browser origins allowed besides the server's own address. */
  allowedOrigins: string[];
  /** The callers' static tokens (digests only: never logged), their policies, and `[http.oauth]` when set. */
  tokens: CallerTokens;
  policies: CallerPolicies;
  oauth?: HttpOAuthSettings;
  limits: HttpLimits;
}

/**
 * The server's settings from `[http]`, its SYSTEM1_HTTP_* variables and the flags. Problems are returned as
 * sentences naming the key, never thrown: any of them stops `serve-http` before it listens.
 */
export function settleHttpOptions(
  config: LoadedConfig,
  flags: ServeHttpFlags,
  env: Env,
): { options?: HttpServeOptions; problems: string[] } {
  const problems = config.errors
    .filter(({ key }) => key.startsWith('http.') || key.startsWith('SYSTEM1_HTTP_'))
    .map(({ message }) => message);
  const settings = config.http;
  const host = flags.host ?? settings.host;
  const { tokens, problems: tokenProblems } = CallerTokens.fromEnv(env);
  const policies = new CallerPolicies(settings, config.httpCallers);
  problems.push(...tokenProblems, ...policies.problems, ...oauthProblems(config.httpOAuth));
  if (!isLoopbackHost(host) && tokens.none && !config.httpOAuth) {
    problems.push(
      `host ${host} is not this machine: other machines could ask your engines without a token; ` +
        `set ${HTTP_TOKEN_VARIABLE} (clients then send "Authorization: Bearer <token>") ` +
        'or [http.oauth], or bind 127.0.0.1',
    );
  }
  const headersTimeoutMs = settings.headers_timeout_s * 1000;
  const requestTimeoutMs = settings.request_timeout_s * 1000;
  // Node refuses to start a server whose headers may take longer than the whole request.
  if (headersTimeoutMs > requestTimeoutMs)
    problems.push(
      `[http] headers_timeout_s (${settings.headers_timeout_s}) ` +
        `must not be above request_timeout_s (${settings.request_timeout_s})`,
    );
  if (problems.length > 0) return { problems };
  return {
    problems,
    options: {
      host,
      port: flags.port ?? settings.port,
      allowedHosts: settings.allowed_hosts,
      allowedOrigins: settings.allowed_origins,
      tokens,
      policies,
      ...(config.httpOAuth && { oauth: config.httpOAuth }),
      limits: {
        maxBodyBytes: settings.max_body_bytes || MAX_LINE_BYTES,
        maxInFlight: settings.max_in_flight,
        maxConnections: settings.max_connections,
        headersTimeoutMs,
        requestTimeoutMs,
        bodyIdleTimeoutMs: settings.body_idle_timeout_s * 1000,
        keepAliveTimeoutMs: settings.keep_alive_timeout_s * 1000,
      },
    },
  };
}

/** `[http.oauth]` needs an issuer and an audience, both URLs, https unless on this machine (OAuth 2.1 needs TLS). */
function oauthProblems(oauth: HttpOAuthSettings | undefined): string[] {
  if (!oauth) return [];
  return (['issuer', 'audience'] as const).flatMap((key) => {
    const value = oauth[key];
    if (value === '')
      return [`[http.oauth] ${key} is missing: an authorizing server needs the issuer's URL and its own resource URI`];
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return [`[http.oauth] ${key} must be a URL, got ${JSON.stringify(value.slice(0, 80))}`];
    }
    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return [];
    return [
      `[http.oauth] ${key} must be an https URL (http only on this machine), got ${JSON.stringify(value.slice(0, 80))}`,
    ];
  });
}
