import type { IncomingHttpHeaders } from 'node:http';

/** What the Hub says about one file before it is downloaded. */
export interface HubFileMetadata {
  /** The commit the revision resolved to (`X-Repo-Commit`), when the server says. */
  commit?: string;
  /** The file's sha256 for a large (LFS) file, whose `X-Linked-Etag` is its LFS object id. */
  sha256?: string;
  /** Its size in bytes, when the server says. */
  size?: number;
  /** Stored in LFS (or Xet) storage: the Hub redirects its download to a CDN. */
  lfs: boolean;
}

const COMMIT = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An ETag as huggingface_hub normalises it: no weak-validator prefix, no quotes. */
function etagValue(text: string | undefined): string | undefined {
  return text?.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function byteCount(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,16}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/**
 * The metadata of the answer to a HEAD on a resolve URL, read as huggingface_hub's get_hf_file_metadata reads
 * it: `X-Repo-Commit`; `X-Linked-Etag` (the LFS sha256) and `X-Linked-Size`, which the Hub puts on the
 * redirect of an LFS file; else `Content-Length` of a 200 (a redirect's own length is its body's, not the
 * file's). A regular file's ETag is its git blob id, which is not a sha256 of the bytes, so it is not kept.
 */
export function fileMetadataOf(status: number, headers: IncomingHttpHeaders): HubFileMetadata {
  const commit = header(headers, 'x-repo-commit')?.trim().toLowerCase();
  const linkedEtag = etagValue(header(headers, 'x-linked-etag'));
  const linkedSize = byteCount(header(headers, 'x-linked-size'));
  const size = linkedSize ?? (status === 200 ? byteCount(header(headers, 'content-length')) : undefined);
  return {
    ...(commit && COMMIT.test(commit) && { commit }),
    ...(linkedEtag && SHA256.test(linkedEtag) && { sha256: linkedEtag }),
    ...(size !== undefined && { size }),
    lfs: linkedEtag !== undefined || linkedSize !== undefined,
  };
}
