import type { ProviderCreateContext } from '../../decisions/registry/provider.interface';
import { endpointUrl } from './endpoint';
import type { EngineHttpClient, EngineResponse } from './engine-http.client';
import { configuredEndpoint, type HttpEngineSettings, secretFromEnv } from './http-settings';

/** What one request to an engine may carry beside its route. */
export interface EngineCall {
  /** JSON body, for POST. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Where an engine listens and how to reach it: every request goes through the guarded client (loopback
 * unless allowed, no proxy for loopback, no redirects, a size cap), carries the key as a bearer when its
 * variable is set, and has the key scrubbed from any engine text an error shows.
 *
 * @example
 * const connection = localConnection(http, settings, 'SYSTEM1_MYENGINE_API_KEY', context);
 * const { body } = await connection.request('POST', '/v1/decide', signal, { body: { question } });
 */
export class EngineConnection {
  constructor(
    private readonly http: EngineHttpClient,
    /** The checked endpoint (see `configuredEndpoint`). */
    readonly base: URL,
    readonly allowRemote: boolean,
    /** The environment variable holding the bearer token, read at call time. */
    readonly keyVariable: string,
    private readonly env: ProviderCreateContext['env'],
  ) {}

  /** The URL of the last path asked: an engine is asked at one path for every decision, so it is built once. */
  private last?: { path: string; url: URL };

  /** The URL of `path` under the endpoint. */
  private urlOf(path: string): URL {
    if (this.last?.path !== path) this.last = { path, url: endpointUrl(this.base, path) };
    return this.last.url;
  }

  /** The key, when its variable is set: read per call so a rotated key needs no restart. */
  apiKey(): string | undefined {
    return secretFromEnv(this.env, this.keyVariable);
  }

  /** One request to the engine, with the bearer (when a key is set) and the attempt's signal. */
  request(method: 'GET' | 'POST', path: string, signal: AbortSignal, call: EngineCall = {}): Promise<EngineResponse> {
    const { body, headers = {} } = call;
    const key = this.apiKey();
    return this.http.request({
      method,
      url: this.urlOf(path),
      body,
      headers: key ? { ...headers, authorization: `Bearer ${key}` } : headers,
      signal,
      allowRemote: this.allowRemote,
      secrets: key ? [key] : [],
    });
  }
}

/** The connection to an engine on this machine (or elsewhere with `allow_remote`), from its settings. */
export function localConnection(
  http: EngineHttpClient,
  settings: Pick<HttpEngineSettings, 'endpoint'> & { readonly allow_remote?: boolean },
  keyVariable: string,
  { env }: ProviderCreateContext,
): EngineConnection {
  return new EngineConnection(http, configuredEndpoint(settings), settings.allow_remote === true, keyVariable, env);
}

/**
 * The connection to a hosted API, remote by nature: no `allow_remote` to set, but https unless the
 * endpoint is this machine, since every request carries the key.
 */
export function hostedConnection(
  http: EngineHttpClient,
  settings: { readonly endpoint: string },
  keyVariable: string,
  { env }: ProviderCreateContext,
): EngineConnection {
  const base = configuredEndpoint(settings, { allowRemote: true, httpsUnlessLoopback: true });
  return new EngineConnection(http, base, true, keyVariable, env);
}
