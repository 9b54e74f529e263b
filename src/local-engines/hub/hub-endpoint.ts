import { PullError } from './pull-error';

const DEFAULT_ENDPOINT = 'https://huggingface.co';

/**
 * Where models come from: the Hugging Face Hub, or a mirror of its file layout named by `HF_ENDPOINT` (as
 * huggingface_hub reads it), and `HF_TOKEN` for a gated or private repo, from the environment only.
 *
 * The one place that decides which request carries the token: only one to the endpoint's own origin
 * (scheme, host and port), so the CDN the Hub redirects large files to never sees it, nor does plain http
 * on the same host.
 *
 * @example
 *   const hub = HubEndpoint.fromEnv(process.env);
 *   hub.fileUrl('Alibaba-NLP/gte-reranker-modernbert-base', 'main', 'onnx/model.onnx');
 *   // https://huggingface.co/Alibaba-NLP/gte-reranker-modernbert-base/resolve/main/onnx/model.onnx
 */
export class HubEndpoint {
  private constructor(
    /** The endpoint without a trailing slash; a mirror may serve the layout under a path. */
    private readonly base: string,
    readonly origin: string,
    private readonly token: string | undefined,
  ) {}

  static fromEnv(env: Readonly<Record<string, string | undefined>>): HubEndpoint {
    const text = env.HF_ENDPOINT?.trim() || DEFAULT_ENDPOINT;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new PullError(`HF_ENDPOINT is not a URL: ${JSON.stringify(text.slice(0, 200))}`);
    }
    refuseScheme(url, 'HF_ENDPOINT');
    if (url.username || url.password)
      throw new PullError('HF_ENDPOINT must not carry a user or password: put the token in HF_TOKEN');
    if (url.search || url.hash) throw new PullError('HF_ENDPOINT must be a plain URL, without a query or a fragment');
    const token = env.HF_TOKEN?.trim() || undefined;
    return new HubEndpoint(url.href.replace(/\/+$/, ''), url.origin, token);
  }

  get hasToken(): boolean {
    return this.token !== undefined;
  }

  /**
   * `<endpoint>/<repo>/resolve/<revision>/<file>`, the revision as one path segment (a branch may hold a `/`).
   * Refused when the URL would not keep that path as built (a `.` or `..` segment the URL parser collapses),
   * so no request, and no token, goes anywhere else on the Hub.
   */
  fileUrl(repo: string, revision: string, file: string): URL {
    const segments = [...repo.split('/'), 'resolve', revision, ...file.split('/')].map(encodeURIComponent);
    const url = new URL(`${this.base}/${segments.join('/')}`);
    const basePath = new URL(this.base).pathname.replace(/\/+$/, '');
    if (url.pathname !== `${basePath}/${segments.join('/')}`)
      throw new PullError(
        `${file} of ${repo} at the revision ${JSON.stringify(revision.slice(0, 200))} would be fetched from ` +
          `${url.pathname.slice(0, 200)}, not from ${repo}/resolve/<revision>/: refused`,
      );
    return url;
  }

  /** The headers a request to `url` may carry: the token only to the endpoint's origin. */
  headersFor(url: URL): Record<string, string> {
    return this.token !== undefined && url.origin === this.origin ? { authorization: `Bearer ${this.token}` } : {};
  }
}

/**
 * `text` encoded as one URL path segment, or undefined when a URL would not keep it as one: `.` and `..` are
 * steps in a path, which the URL parser resolves away, not names.
 */
export function urlSegment(text: string): string | undefined {
  const encoded = encodeURIComponent(text);
  // A host that is never resolved: the URL is only parsed, to see what its parser makes of the segment.
  return new URL(`http://segment.invalid/${encoded}`).pathname === `/${encoded}` ? encoded : undefined;
}

/** Only http and https are fetched: a redirect to file:, ftp: or data: is refused, never followed. */
export function refuseScheme(url: URL, what: string): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PullError(`${what} has the scheme ${url.protocol.replace(/:$/, '')}; only http and https are fetched`);
  }
}

/** The environment for a program that has no business with the Hub (npm, the engine): without HF_TOKEN. */
export function withoutHubToken(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { HF_TOKEN: _token, ...rest } = env;
  return rest;
}
