import { urlSegment } from './hub-endpoint';
import { PullError } from './pull-error';

/**
 * A Hub repo id (`owner/name`, or a bare legacy `name`), checked before it names a folder on disk: the Hub's
 * own characters only (letters, digits, `-`, `_`, `.`), no `..`, and never one of the names the pull gives
 * its own folders beside a model (`<repo>.partial`, `<repo>.old`).
 */
export function checkRepoName(repo: string): string {
  const segment = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$/;
  const parts = repo.split('/');
  const ok =
    parts.length <= 2 &&
    parts.every((part) => segment.test(part) && !part.includes('..')) &&
    !/\.(partial|old)$/.test(repo);
  if (!ok)
    throw new PullError(
      `${JSON.stringify(repo.slice(0, 200))} is not a Hugging Face repo id: ` +
        'owner/name, with letters, digits, "-", "_" and "."',
    );
  return repo;
}

/**
 * A branch, tag or commit: sent as one URL path segment (a branch's `/` encoded), so any printable text without
 * spaces will do but `.` and `..`, which a URL keeps as no segment at all: `..` would send the request, and
 * HF_TOKEN with it, to `<repo>/<file>` outside `/resolve/`.
 */
export function checkRevision(revision: string): string {
  const printable = /^[\x21-\x7e]{1,255}$/.test(revision);
  if (!printable || urlSegment(revision) === undefined)
    throw new PullError(
      `${JSON.stringify(revision.slice(0, 200))} is not a revision: a branch, tag or commit id` +
        (printable ? ' ("." and ".." are steps in a path, not names)' : ''),
    );
  return revision;
}
