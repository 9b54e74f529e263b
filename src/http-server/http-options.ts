import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { MAX_LINE_BYTES } from '../mcp/stdin-guard';
import { isLoopbackHost } from '../providers/http/endpoint';

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
  /** When set, /mcp and /metrics need it as a bearer token. Never logged. */
  token?: string;
  limits: HttpLimits;
}

/** The only place the server's token is read: an environment variable, never the file or a flag. */
export const HTTP_TOKEN_VARIABLE = 'SYSTEM1_HTTP_TOKEN';

/**
 * The server's settings from `[http]`, its SYSTEM1_HTTP_* variables and the flags. Problems are returned as
 * sentences naming the key, never thrown: any of them stops `serve-http` before it listens.
 */
export function settleHttpOptions(config: LoadedConfig, flags: ServeHttpFlags, env: Env): { options?: HttpServeOptions; problems: string[] } {
  const problems = config.errors.filter(({ key }) => key.startsWith('http.') || key.startsWith('SYSTEM1_HTTP_')).map(({ message }) => message);
  const settings = config.http;
  const host = flags.host ?? settings.host;
  const token = env[HTTP_TOKEN_VARIABLE];
  // Set but blank is a mistake (an empty secret from a template or a script), not a request to turn the check off.
  if (token !== undefined && token.trim() === '') problems.push(`${HTTP_TOKEN_VARIABLE} is set but blank; give it a token, or unset it to run on loopback without one`);
  const usableToken = token?.trim() ? token.trim() : undefined;
  if (!isLoopbackHost(host) && !usableToken) {
    problems.push(`host ${host} is not this machine: other machines could ask your engines without a token; set ${HTTP_TOKEN_VARIABLE} (clients then send "Authorization: Bearer <token>"), or bind 127.0.0.1`);
  }
  const headersTimeoutMs = settings.headers_timeout_s * 1000;
  const requestTimeoutMs = settings.request_timeout_s * 1000;
  // Node refuses to start a server whose headers may take longer than the whole request.
  if (headersTimeoutMs > requestTimeoutMs) problems.push(`[http] headers_timeout_s (${settings.headers_timeout_s}) must not be above request_timeout_s (${settings.request_timeout_s})`);
  if (problems.length > 0) return { problems };
  return {
    problems,
    options: {
      host,
      port: flags.port ?? settings.port,
      allowedHosts: settings.allowed_hosts,
      allowedOrigins: settings.allowed_origins,
      ...(usableToken && { token: usableToken }),
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
