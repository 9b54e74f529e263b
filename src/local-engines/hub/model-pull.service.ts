import { Injectable } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../../common/byte-count';
import { FileDownloader } from './file-download.service';
import { HubEndpoint } from './hub-endpoint';
import { fileMetadataOf, type HubFileMetadata } from './hub-file-metadata';
import { HubHttpClient } from './hub-http.client';
import { MODEL_FILE, type ModelVariant, type PullManifest, readManifest, writeManifest } from './pull-manifest';
import { PullError, statusError } from './pull-error';
import { checkRepoName, checkRevision } from './repo-name';

export interface PullOptions {
  repo: string;
  revision: string;
  variant: ModelVariant;
  /** The size cap of one file, in bytes. */
  maxFileBytes: number;
  /** The folder the model lands in, as `<modelsDir>/<repo>`. */
  modelsDir: string;
  /** Where HF_ENDPOINT and HF_TOKEN are read. */
  env: Readonly<Record<string, string | undefined>>;
  /** One line per file done (progress bars are the downloader's). */
  log: (line: string) => void;
}

export interface PullOutcome {
  folder: string;
  manifest: PullManifest;
  /** The folder already held this commit's files, checked: nothing was downloaded. */
  upToDate: boolean;
}

interface WantedFile {
  path: string;
  optional?: true;
}

/**
 * What the server reads (engines/reranker/lib/model-folder.js), in download order: the small files first, so
 * a gated repo or a wrong name fails before the large one starts.
 */
const FILES: Record<ModelVariant, WantedFile[]> = {
  float32: [
    { path: 'config.json' },
    { path: 'tokenizer_config.json', optional: true },
    { path: 'tokenizer.json' },
    { path: MODEL_FILE.float32.path },
  ],
  quantized: [
    { path: 'config.json' },
    { path: 'tokenizer_config.json', optional: true },
    { path: 'tokenizer.json' },
    { path: MODEL_FILE.quantized.path },
  ],
};

/** Marks what a staging folder is filling, so a later run for another commit or variant starts it afresh. */
const STAGING_NOTE = '.staging.json';

/**
 * Pulls a cross-encoder exported to ONNX from a Hub's file layout into `<modelsDir>/<repo>`.
 *
 * Metadata: a HEAD on each file's resolve URL without following the redirect to the CDN, as huggingface_hub's
 * get_hf_file_metadata does (`X-Repo-Commit`, `X-Linked-Etag` = the LFS sha256, `X-Linked-Size`); the tree
 * API (`/api/models/<repo>/tree/<rev>/<dir>`) would give the same `lfs.oid` but is not part of the file
 * layout a mirror must serve. The first answer's commit pins every later request, so the files come from one
 * commit even if the branch moves meanwhile. LFS files are checked against their sha256; regular files
 * (config, tokenizer config) against their size only, since their ETag is a git blob id.
 *
 * Files arrive in `<repo>.partial/` and the folder takes the model's name only when every file is there and
 * checked: a failed or mismatched pull leaves no model folder, and an interrupted one leaves its `.part` for
 * the next run to resume.
 */
@Injectable()
export class ModelPuller {
  constructor(
    private readonly http: HubHttpClient,
    private readonly downloader: FileDownloader,
  ) {}

  async pull(options: PullOptions): Promise<PullOutcome> {
    const repo = checkRepoName(options.repo);
    const revision = checkRevision(options.revision);
    const hub = HubEndpoint.fromEnv(options.env);
    const planned: { path: string; meta: HubFileMetadata }[] = [];
    let commit: string | undefined;
    for (const wanted of FILES[options.variant]) {
      const meta = await this.metadata(hub, repo, commit ?? revision, revision, wanted);
      if (!meta) continue;
      commit ??= meta.commit;
      if (meta.size !== undefined && meta.size > options.maxFileBytes) {
        throw new PullError(
          `${wanted.path} of ${repo} is ${formatBytes(meta.size)}, ` +
            `over the ${formatBytes(options.maxFileBytes)} cap for one file: ` +
            'refused before downloading (raise --max-file-size to allow it)',
        );
      }
      planned.push({ path: wanted.path, meta });
    }

    const folder = path.join(options.modelsDir, ...repo.split('/'));
    const current = readManifest(folder);
    if (
      current &&
      commit !== undefined &&
      current.commit === commit &&
      current.variant === options.variant &&
      intact(folder, current)
    ) {
      return { folder, manifest: current, upToDate: true };
    }

    const staging = `${folder}.partial`;
    const key = JSON.stringify({ repo, commit: commit ?? revision, variant: options.variant });
    if (existsSync(staging) && readText(path.join(staging, STAGING_NOTE)) !== key)
      rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeFileSync(path.join(staging, STAGING_NOTE), key);

    const files: PullManifest['files'] = [];
    for (const { path: file, meta } of planned) {
      const context = { repo, file, revision, tokenSet: hub.hasToken };
      const done = await this.downloader.download(
        {
          url: hub.fileUrl(repo, commit ?? revision, file),
          dest: path.join(staging, ...file.split('/')),
          expected: meta,
          maxBytes: options.maxFileBytes,
          context,
        },
        hub,
      );
      const how = done.reused
        ? 'already downloaded'
        : done.resumedFrom > 0
          ? `resumed at ${formatBytes(done.resumedFrom)}`
          : 'downloaded';
      options.log(
        `  ${file}: ${formatBytes(done.bytes)}, ${how}, ` +
          `${meta.sha256 ? 'sha256 matches the Hub' : 'size checked (no sha256 from the Hub for a regular file)'}`,
      );
      files.push({ path: file, bytes: done.bytes, sha256: done.sha256, sha256_from_hub: meta.sha256 !== undefined });
    }

    const manifest: PullManifest = {
      repo,
      revision,
      ...(commit !== undefined && { commit }),
      endpoint: hub.origin,
      variant: options.variant,
      files,
      pulled_at: new Date().toISOString(),
    };
    writeManifest(staging, manifest);
    rmSync(path.join(staging, STAGING_NOTE), { force: true });
    replaceFolder(staging, folder);
    return { folder, manifest, upToDate: false };
  }

  /** The file's metadata, or undefined for an optional file the repo does not have. */
  private async metadata(
    hub: HubEndpoint,
    repo: string,
    at: string,
    revision: string,
    wanted: WantedFile,
  ): Promise<HubFileMetadata | undefined> {
    const reply = await this.http.head(hub.fileUrl(repo, at, wanted.path), hub).catch((error: Error) => {
      throw new PullError(`${wanted.path} of ${repo}: ${error.message}`);
    });
    const errorCode = reply.headers['x-error-code'] as string | undefined;
    if (reply.status === 404 && wanted.optional && (errorCode === undefined || errorCode === 'EntryNotFound'))
      return undefined;
    if (reply.status !== 200 && !(reply.status >= 300 && reply.status < 400 && reply.headers.location)) {
      throw statusError(reply.status, errorCode, { repo, file: wanted.path, revision, tokenSet: hub.hasToken });
    }
    return fileMetadataOf(reply.status, reply.headers);
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every file the manifest lists is there with its size (the bytes were checked when they arrived). */
function intact(folder: string, manifest: PullManifest): boolean {
  return manifest.files.every(({ path: file, bytes }) => {
    try {
      return statSync(path.join(folder, ...file.split('/'))).size === bytes;
    } catch {
      return false;
    }
  });
}

/** Puts the complete staging folder in place of the model folder; an older pull of the repo goes. */
function replaceFolder(staging: string, folder: string): void {
  const old = `${folder}.old`;
  rmSync(old, { recursive: true, force: true });
  if (existsSync(folder)) renameSync(folder, old);
  renameSync(staging, folder);
  rmSync(old, { recursive: true, force: true });
}
