import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request as httpRequest,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connectLookup, endpointUrl } from '../providers/http/endpoint';
import { proxyTunnelFor } from '../providers/http/proxy-tunnel';
import { StaleSocketError, watchForStaleSocket } from '../providers/http/stale-socket';
import { Hop, nextHopHeaders } from './hop-headers';
import { REPORT_HEADERS } from './route-report';

/** The caller's request as it arrived, to be sent on byte for byte. */
export interface ForwardedCall {
  method: string;
  /** The path below the router's `/v1` (`/chat/completions`), joined to the upstream's base URL. */
  path: string;
  /** The query string with its `?`, or ''. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Ends the upstream request when the caller goes away. */
  signal: AbortSignal;
}

/** Besides hop-by-hop headers: what the router itself answers (Host, Expect, the length it sets) and its own token. */
const NOT_FORWARDED = new Set(['host', 'expect', 'content-length', 'x-system1-token']);

/** Why the upstream gave no answer to relay; the message is safe to show (no URL query, header or body). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: 502 | 504,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** How long the upstream may stay silent; a slow model streams, so this is per pause, not per answer. */
const IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * Sends the caller's request to the slow model untouched: the same method, body bytes and headers, the
 * caller's Authorization included, none of it logged. An https upstream on another machine goes through the
 * system proxy as a CONNECT tunnel when one is set (the proxy never reads the key); a loopback one goes
 * direct. No redirect is followed (a redirect would carry the caller's key somewhere the user never named). The
 * answer comes back as a stream, compressed or not, exactly as the upstream sent it.
 */
export class UpstreamForwarder {
  constructor(
    private readonly base: URL,
    /** This router in the Via header, so a request that loops back to it is recognised. */
    readonly hop: Hop = new Hop(),
  ) {}

  /**
   * The upstream's answer to the call. A request lost on a kept-alive connection the upstream had closed (see
   * {@link watchForStaleSocket}) cannot have reached it, so it alone is sent once more, on a fresh connection.
   */
  async open(call: ForwardedCall): Promise<IncomingMessage> {
    try {
      return await this.send(call, false);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      if (call.signal.aborted) throw error.failure;
      return this.send(call, true);
    }
  }

  private send(call: ForwardedCall, freshConnection: boolean): Promise<IncomingMessage> {
    const target = endpointUrl(this.base, call.path);
    target.search = call.query;
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const agent = proxyTunnelFor(target) ?? (freshConnection ? false : undefined);
      // `localhost` is connected to as 127.0.0.1/::1, never looked up in DNS (the loopback rule in endpoint.ts).
      const lookup = connectLookup(target);
      const options = {
        method: call.method,
        headers: this.forwardedHeaders(call),
        signal: call.signal,
        timeout: IDLE_TIMEOUT_MS,
        ...(agent !== undefined && { agent }),
        ...(lookup && { lookup }),
      };
      const outgoing = send(target, options, (response) => {
        const status = response.statusCode ?? 502;
        if (status >= 300 && status < 400) {
          response.resume();
          reject(
            new UpstreamError(
              `the upstream answered with a redirect (${status}), which the router does not follow`,
              502,
            ),
          );
          return;
        }
        resolve(response);
      });
      outgoing.on('timeout', () => outgoing.destroy(new UpstreamError('the upstream did not answer in time', 504)));
      const staleSocket = watchForStaleSocket(outgoing);
      // Only the error's code is shown: Node's messages can quote a header value.
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof UpstreamError) return reject(error);
        const shown = new UpstreamError(`the upstream could not be reached (${error.code ?? error.name})`, 502);
        reject(staleSocket(error) ? new StaleSocketError(shown) : shown);
      });
      outgoing.end(call.body);
    });
  }

  private forwardedHeaders(call: ForwardedCall): OutgoingHttpHeaders {
    const headers = nextHopHeaders(call.headers, this.hop, NOT_FORWARDED);
    if (call.body.length > 0 || !['GET', 'HEAD'].includes(call.method)) headers['content-length'] = call.body.length;
    return headers;
  }

  /** The upstream's response headers to send back to the caller, less those the router sets itself. */
  returnedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
    return nextHopHeaders(headers, this.hop, REPORT_HEADERS);
  }
}
