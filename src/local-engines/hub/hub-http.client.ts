import { Injectable } from '@nestjs/common';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { GATEWAY_VERSION } from '../../common/version';
import { HubEndpoint, refuseScheme } from './hub-endpoint';
import { PullError, UNREACHABLE_ADVICE } from './pull-error';

/** One answer: its status and headers, the URL that gave it, and the body still to read (or drop). */
export interface HubReply {
  status: number;
  headers: IncomingHttpHeaders;
  url: URL;
  body: IncomingMessage;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * HTTP to a Hub and the CDN it redirects to. Redirects are followed here, hop by hop, so that every hop asks
 * HubEndpoint which headers it may carry (the token to the Hub's origin only) and is refused unless http(s).
 * Plain node:http, no system proxy (not supported yet) and no compression (`Accept-Encoding: identity`, so
 * sizes are the file's).
 */
@Injectable()
export class HubHttpClient {
  /** The Hub's hop to its CDN, a renamed repo's hop, and room to spare; a loop stops here. */
  static readonly MAX_REDIRECTS = 5;
  /** A connection that sends nothing for this long is dropped; a download's .part is kept for resume. */
  idleTimeoutMs = 60_000;

  /**
   * HEAD as huggingface_hub's get_hf_file_metadata sends it: a redirect within the endpoint's origin (a
   * renamed repo) is followed, one elsewhere (the CDN of an LFS file) is returned as it is, since the Hub
   * puts the file's metadata on that redirect.
   */
  async head(url: URL, hub: HubEndpoint): Promise<HubReply> {
    for (let hops = 0; ; hops++) {
      const reply = await this.send('HEAD', url, hub, {});
      reply.body.resume();
      const next = redirectTarget(reply);
      if (!next || next.origin !== url.origin) return reply;
      if (hops >= HubHttpClient.MAX_REDIRECTS) throw tooManyRedirects(url);
      url = next;
    }
  }

  /** GET from byte `from` on (an HTTP Range when above 0), following up to MAX_REDIRECTS redirects. */
  async get(url: URL, hub: HubEndpoint, { from = 0 }: { from?: number } = {}): Promise<HubReply> {
    const range: Record<string, string> = from > 0 ? { range: `bytes=${from}-` } : {};
    for (let hops = 0; ; hops++) {
      const reply = await this.send('GET', url, hub, range);
      const next = redirectTarget(reply);
      if (!next) return reply;
      reply.body.resume();
      if (hops >= HubHttpClient.MAX_REDIRECTS) throw tooManyRedirects(url);
      url = next;
    }
  }

  private send(method: 'GET' | 'HEAD', url: URL, hub: HubEndpoint, extra: Record<string, string>): Promise<HubReply> {
    const headers = {
      'user-agent': `system1-gateway/${GATEWAY_VERSION}`,
      'accept-encoding': 'identity',
      ...extra,
      ...hub.headersFor(url),
    };
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers }, (body) =>
        resolve({ status: body.statusCode ?? 0, headers: body.headers, url, body }),
      );
      request.setTimeout(this.idleTimeoutMs, () =>
        request.destroy(
          new PullError(`${url.host} sent nothing for ${this.idleTimeoutMs / 1000} s; ${UNREACHABLE_ADVICE}`),
        ),
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error instanceof PullError
            ? error
            : new PullError(`could not reach ${url.host} (${error.code ?? error.message}); ${UNREACHABLE_ADVICE}`),
        ),
      );
      request.end();
    });
  }
}

/** Where a redirect points, or undefined for any other answer; a scheme other than http(s) is refused. */
function redirectTarget(reply: HubReply): URL | undefined {
  const location = reply.headers.location;
  if (!REDIRECT_STATUSES.has(reply.status) || !location) return undefined;
  let next: URL;
  try {
    next = new URL(location, reply.url);
  } catch {
    throw new PullError(`${reply.url.host} redirected to something that is not a URL`);
  }
  refuseScheme(next, `a redirect from ${reply.url.host}`);
  return next;
}

function tooManyRedirects(url: URL): PullError {
  return new PullError(
    `more than ${HubHttpClient.MAX_REDIRECTS} redirects starting at ${url.host}: refused (a redirect loop?)`,
  );
}
