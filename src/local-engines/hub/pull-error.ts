/**
 * Why a pull stopped, in one line a user can act on: the file, what went wrong and what to do. Messages never
 * hold HF_TOKEN, a request header or a signed download URL; at most the endpoint's origin or a host name.
 */
export class PullError extends Error {
  override readonly name = 'PullError';

  constructor(
    message: string,
    /** The file the repo does not have (a 404 for it), so a caller can take another variant. */
    readonly missingFile?: string,
  ) {
    super(message);
  }
}

/**
 * What to try when the Hub cannot be reached at all (offline, a firewall, a blocked host): the three ways the
 * pull works without huggingface.co, and where the README says more.
 */
export const UNREACHABLE_ADVICE =
  'if this machine cannot reach the Hub, set HF_ENDPOINT to a mirror that has the repo ' +
  '(HF_ENDPOINT=https://your-mirror system1 engine pull reranker), add --revision REV for a commit the mirror ' +
  'holds, or copy a pulled model folder here and run system1 engine start reranker --model DIR ' +
  '(README "Quick start", engines/reranker/README.md#get-a-model)';

/** What a failed Hub answer is about, for its message. */
export interface FileContext {
  repo: string;
  file: string;
  revision: string;
  tokenSet: boolean;
}

/**
 * The Hub's answer to a file it will not serve, as a PullError. The Hub says which kind of "not found" in
 * `X-Error-Code` (huggingface_hub reads the same header): RepoNotFound comes as 401 to a caller without a
 * token, so a private repo's existence is not given away.
 */
export function statusError(
  status: number,
  errorCode: string | undefined,
  { repo, file, revision, tokenSet }: FileContext,
): PullError {
  if (errorCode === 'RevisionNotFound')
    return new PullError(`the repo ${repo} has no revision ${revision} (${status})`);
  if (errorCode === 'RepoNotFound') {
    return new PullError(
      `the repo ${repo} does not exist, or is private or gated (${status}): check its ` +
        `name${tokenSet ? ' and that HF_TOKEN can read it' : ', or set HF_TOKEN to a token that can read it'}`,
    );
  }
  if (status === 404) return new PullError(`the repo ${repo} has no file ${file} at revision ${revision} (404)`, file);
  if (status === 401 || status === 403) {
    return new PullError(
      tokenSet
        ? `the Hub refused HF_TOKEN for ${file} of ${repo} (${status}): the token cannot read this repo; ` +
            'if it is gated, accept its conditions on its page first'
        : `${file} of ${repo} needs a token (${status}: the repo is gated or private): ` +
            'set HF_TOKEN to a Hugging Face access token that can read it',
    );
  }
  if (status === 416) return new PullError(`the server refused the byte range asked for ${file} of ${repo} (416)`);
  if (status === 429)
    return new PullError(
      `the Hub is limiting requests (429) while fetching ${file} of ${repo}: ` +
        'wait a minute and run the same command again',
    );
  if (status >= 500)
    return new PullError(`the Hub failed (${status}) while serving ${file} of ${repo}: try again later`);
  return new PullError(`the Hub answered ${status} for ${file} of ${repo} at revision ${revision}`);
}
