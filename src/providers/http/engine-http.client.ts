import { Injectable } from '@nestjs/common';
import * as http from 'node:http';
import * as https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { GATEWAY_VERSION } from '../../common/version';
import { setOwn } from '../../common/own-keys';
import { isRecord } from '../../common/is-record';
import { EngineBodyError, EngineStatusError, EngineTransportError } from '../../decisions/errors/decision-error';
import { connectLookup, isLoopbackHost } from './endpoint';
import { ProxyTunnelError, proxyTunnelFor } from './proxy-tunnel';
import { scrubSecrets } from './secret-scrub';
import { StaleSocketError, watchForStaleSocket } from './stale-socket';

const USER_AGENT = `system1-gateway/${GATEWAY_VERSION}`;

/** The most an engine reply may weigh; a decision is a few hundred bytes, a model list a few KiB. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface EngineRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** JSON body for POST. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The attempt's signal: aborting it ends the request, a stalled body included. */
  signal: AbortSignal;
  /** The provider's `allow_remote`: checked again here, so no adapter can forget it. */
  allowRemote: boolean;
  /** Values never to show (the keys sent): scrubbed from any engine text surfaced in an error. */
  secrets?: readonly string[];
}

/** An engine's reply before it is read: status, lower-case headers, the body as text. */
export interface EngineReplyText {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * The one HTTP client every engine adapter uses. It keeps the rules in one place: loopback only unless
 * allowed, never a proxy for loopback (HTTP_PROXY is set on some machines and would receive the key),
 * https through a proxy only as a CONNECT tunnel, no redirects followed (the key would go to the target),
 * a size cap, the attempt's signal on every request, and typed failures whose messages are safe to show.
 */
@Injectable()
export class EngineHttpClient {
  // Keep-alive: an engine on this machine answers in milliseconds, and a new connection per decision costs
  // more than the rest of the gateway's work (node:http with a kept-alive socket is ~0.14 ms a call).
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  async request({
    method,
    url,
    body,
    headers = {},
    signal,
    allowRemote,
    secrets = [],
  }: EngineRequest): Promise<EngineResponse> {
    const { where, loopback } = targetOf(url);
    if (!loopback && !allowRemote) {
      throw new EngineTransportError(`refused to call ${url.hostname}: not this machine and allow_remote is off`);
    }
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // Built key by key, not spread together: every decision sends one.
    const requestHeaders: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (payload !== undefined) {
      requestHeaders['content-type'] = 'application/json';
      requestHeaders['content-length'] = String(Buffer.byteLength(payload));
    }
    for (const name of Object.keys(headers)) setOwn(requestHeaders, name, headers[name]);

    let reply: EngineReplyText;
    try {
      const agent = (!loopback && proxyTunnelFor(url)) || this.agents[url.protocol as 'http:' | 'https:'];
      const lookup = connectLookup(url);
      reply = await this.exchange(
        url,
        { method, headers: requestHeaders, signal, agent, ...(lookup && { lookup }) },
        payload,
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // The proxy's own words already name it and the target: the engine was never reached.
      if (error instanceof ProxyTunnelError) throw new EngineTransportError(error.message);
      throw new EngineTransportError(`${transportProblem(error)} (${where})`);
    }

    const { status, text } = reply;
    if (status >= 300 && status < 400) {
      throw new EngineStatusError(
        status,
        `redirect refused: HTTP ${status} from ${where} (the gateway follows no redirects)`,
      );
    }
    const parsed = parseJson(text);
    if (status < 200 || status >= 300) {
      const retryAfterS = retryAfter(reply.headers['retry-after']);
      const detail = engineDetail(parsed, secrets);
      const retry = retryAfterS === undefined ? '' : ` (retry after ${retryAfterS} s)`;
      throw new EngineStatusError(
        status,
        `HTTP ${status} from ${where}${detail ? `: ${detail}` : ''}${retry}`,
        retryAfterS,
      );
    }
    if (parsed === NOT_JSON) {
      const type = reply.headers['content-type']?.split(';')[0] || 'no content type';
      throw new EngineBodyError(`the reply from ${where} is not JSON (${type}, ${text.length} bytes)`);
    }
    return { status, headers: reply.headers, body: parsed };
  }

  /**
   * One request and its whole reply as text, capped at {@link MAX_RESPONSE_BYTES}; rejects with Node's error.
   * A request lost on a kept-alive socket the engine had closed (see {@link watchForStaleSocket}) never
   * reached it, so it is sent once more on a fresh connection, under the same signal (within the deadline).
   */
  protected exchange(
    url: URL,
    options: http.RequestOptions & { signal: AbortSignal },
    payload: string | undefined,
  ): Promise<EngineReplyText> {
    // A promise chain, not an async function: nothing of this step stays suspended while the engine works.
    return this.exchangeOnce(url, options, payload).catch((error: unknown) => {
      if (!(error instanceof StaleSocketError)) throw error;
      if (options.signal.aborted) throw error.failure;
      // A connection of its own (no agent): another idle socket of the pool may have been closed as well.
      return this.exchangeOnce(url, { ...options, agent: false }, payload);
    });
  }

  private exchangeOnce(
    url: URL,
    options: http.RequestOptions & { signal: AbortSignal },
    payload: string | undefined,
  ): Promise<EngineReplyText> {
    const { signal } = options;
    return new Promise<EngineReplyText>((outcome, failure) => {
      // The caller reports the signal's own reason (see request).
      if (signal.aborted) return failure(new Error('aborted before the request'));
      const resolve = (reply: EngineReplyText) => {
        signal.removeEventListener('abort', abort);
        outcome(reply);
      };
      const reject = (error: Error) => {
        signal.removeEventListener('abort', abort);
        failure(error);
      };
      const transport = url.protocol === 'https:' ? https : http;
      // The URL's options and this request's in one object; the signal is watched below, not by node:http.
      const request = transport.request({ ...targetOf(url).options, ...options, signal: undefined }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            request.destroy(Object.assign(new Error('too large'), { code: TOO_LARGE }));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (!response.complete) return reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
          // Copied now, not when read: a reply that held on to node:http's response kept it, and what it
          // holds, alive into the next collections (1.6 times the bytes promoted per scavenge at 64 in flight).
          const headers: Record<string, string> = {};
          const raw = response.headers;
          for (const key in raw) {
            const value = raw[key];
            if (value !== undefined) setOwn(headers, key, String(value));
          }
          resolve({ status: response.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
        response.on('aborted', () => reject(Object.assign(new Error('aborted'), { code: CUT_OFF })));
      });
      // The signal is watched here rather than handed to node:http, which also ties it to the request's end
      // of stream with listeners of its own (2.6% of a busy server's time in a profile at 64 in flight).
      const abort = () => request.destroy(Object.assign(new Error('aborted'), { code: 'ABORT_ERR' }));
      signal.addEventListener('abort', abort, { once: true });
      const staleSocket = watchForStaleSocket(request);
      request.on('error', (error) => reject(staleSocket(error) ? new StaleSocketError(error) : error));
      request.end(payload);
    });
  }
}

/** What a request to one URL needs from it, worked out once per URL (a connection keeps its URLs). */
interface Target {
  /** `host:port`, for messages. */
  where: string;
  loopback: boolean;
  /** The URL as node:http's options, as node:http would turn it into them on every request. */
  options: http.RequestOptions;
}

const targets = new WeakMap<URL, Target>();

function targetOf(url: URL): Target {
  let target = targets.get(url);
  if (!target) {
    target = {
      where: `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`,
      loopback: isLoopbackHost(url.hostname),
      options: urlToHttpOptions(url),
    };
    targets.set(url, target);
  }
  return target;
}

const NOT_JSON = Symbol('not JSON');
export const TOO_LARGE = 'SYSTEM1_TOO_LARGE';
const CUT_OFF = 'SYSTEM1_CUT_OFF';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** Words for a failed connection, from the error code only: messages of the HTTP layer can quote headers. */
function transportProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused: is the engine running?';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the engine reset the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') return 'the connection timed out';
  if (code === TOO_LARGE) return `the reply is larger than ${MAX_RESPONSE_BYTES} bytes`;
  if (code === CUT_OFF || /aborted|socket hang up/i.test(message)) return 'the reply was cut off';
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return `TLS failure (${code})`;
  return `transport failure (${typeof code === 'string' ? code : 'unknown'})`;
}

function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.round((date - Date.now()) / 1000));
}

/**
 * A short explanation from an engine's error body, when it has one in a known place (FastAPI `detail`,
 * `{error: {message}}`, `{error: "..."}`, the Cloudflare API's `{errors: [{message}]}`), with any secret
 * scrubbed. Bodies can echo a request, so the rest of the body is never shown.
 */
function engineDetail(body: unknown, secrets: readonly string[]): string {
  if (!isRecord(body)) return '';
  const error = body.error;
  const firstOfErrors: unknown = Array.isArray(body.errors) ? body.errors[0] : undefined;
  const candidates = [
    body.detail,
    isRecord(body.detail) ? (body.detail.message ?? body.detail.error_type) : undefined,
    isRecord(error) ? error.message : error,
    isRecord(firstOfErrors) ? firstOfErrors.message : undefined,
    body.message,
  ];
  const text = candidates.find((value): value is string => typeof value === 'string' && value.trim() !== '');
  return text ? safeEngineText(text, secrets) : '';
}

/**
 * Engine text made safe to show: one line, scrubbed of the keys sent in every form an engine may echo them
 * (see {@link scrubSecrets}), at most 200 characters (cut after scrubbing, so no half key is left at the cut).
 */
export function safeEngineText(text: string, secrets: readonly (string | undefined)[]): string {
  const safe = scrubSecrets(text.replace(/\s+/g, ' ').trim(), secrets);
  return safe.length > 200 ? `${safe.slice(0, 197)}...` : safe;
}
