import type * as http from 'node:http';
import { EngineHttpClient, type EngineReplyText, MAX_RESPONSE_BYTES, TOO_LARGE } from './engine-http.client';

/**
 * The engine client over a `fetch` the embedding application gives (a fixture, an instrumented fetch): the
 * same rules (loopback unless allowed, no redirects, the size cap, typed errors), only the transport differs.
 */
export class FetchEngineHttpClient extends EngineHttpClient {
  constructor(private readonly fetchImpl: typeof fetch) {
    super();
  }

  // No retry after a closed kept-alive connection (EngineHttpClient.exchange): only node:http shows whether a
  // socket was reused; this fetch keeps its own connections.
  protected override async exchange(
    url: URL,
    options: http.RequestOptions & { signal: AbortSignal },
    payload: string | undefined,
  ): Promise<EngineReplyText> {
    const response = await this.fetchImpl(url, {
      method: options.method,
      headers: options.headers as Record<string, string>,
      body: payload,
      signal: options.signal,
      redirect: 'manual',
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > MAX_RESPONSE_BYTES) throw Object.assign(new Error('too large'), { code: TOO_LARGE });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key.toLowerCase()] = value));
    return { status: response.status, headers, text: new TextDecoder().decode(bytes) };
  }
}
