import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../../common/byte-count';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { DownloadProgress } from './download-progress';
import type { HubEndpoint } from './hub-endpoint';
import type { HubFileMetadata } from './hub-file-metadata';
import { HubHttpClient, type HubReply } from './hub-http.client';
import { type FileContext, PullError, statusError } from './pull-error';

/** One file to fetch from a Hub into a folder. */
export interface FileDownload {
  /** The file's resolve URL, pinned to a commit when the Hub named one. */
  url: URL;
  /** Where the checked file goes; it arrives in `${dest}.part`, which an interrupted transfer leaves for resume. */
  dest: string;
  /** What the Hub's HEAD said: the size and, for an LFS file, the sha256 the bytes must have. */
  expected: HubFileMetadata;
  /** No file may be larger: checked against what the server announces and against every byte received. */
  maxBytes: number;
  context: FileContext;
}

export interface Downloaded {
  bytes: number;
  sha256: string;
  /** The bytes a .part from an earlier run already held (0: a fresh transfer). */
  resumedFrom: number;
  /** The checked file was already there from an earlier run: nothing was transferred. */
  reused: boolean;
}

/** The part of a 206 answer's `Content-Range: bytes start-end/total` a resume needs. */
function contentRange(header: string | undefined): { start: number; total?: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header?.trim() ?? '');
  return match ? { start: Number(match[1]), ...(match[2] !== '*' && { total: Number(match[2]) }) } : undefined;
}

function sizeOf(file: string): number | undefined {
  try {
    const stats = statSync(file);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

async function digest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

function errorCodeOf(reply: HubReply): string | undefined {
  const code = reply.headers['x-error-code'];
  return Array.isArray(code) ? code[0] : code;
}

/**
 * Downloads one file: resumes a `.part` left by an interrupted transfer with an HTTP Range, refuses a file
 * over the size cap before and while it arrives, and checks the bytes against the Hub's size and sha256
 * before the file takes its name. A file that does not match is deleted, never kept.
 */
@Injectable()
export class FileDownloader {
  constructor(
    private readonly http: HubHttpClient,
    private readonly progress: DownloadProgress,
  ) {}

  async download(job: FileDownload, hub: HubEndpoint): Promise<Downloaded> {
    const { dest, expected } = job;
    if (sizeOf(dest) !== undefined) {
      const kept = await digest(dest);
      if (this.mismatch(job, kept) === undefined) return { ...kept, resumedFrom: 0, reused: true };
      rmSync(dest, { force: true });
    }
    const part = `${dest}.part`;
    mkdirSync(path.dirname(part), { recursive: true });
    let from = sizeOf(part) ?? 0;
    if (expected.size !== undefined && from > expected.size) {
      rmSync(part, { force: true });
      from = 0;
    }
    // A .part that already holds every byte (the run stopped before its check) needs no transfer.
    if (!(from > 0 && from === expected.size)) await this.transfer(job, hub, part, from);
    const got = await digest(part);
    const problem = this.mismatch(job, got);
    if (problem !== undefined) {
      rmSync(part, { force: true });
      throw new PullError(
        `${job.context.file} of ${job.context.repo} ${problem}: deleted it; ` +
          'run the same command again to download it afresh',
      );
    }
    renameSync(part, dest);
    return { ...got, resumedFrom: from, reused: false };
  }

  /** Why the bytes are not the file the Hub described, or undefined when they are. */
  private mismatch({ expected }: FileDownload, got: { bytes: number; sha256: string }): string | undefined {
    if (expected.size !== undefined && got.bytes !== expected.size)
      return `is ${got.bytes} bytes, where the Hub's metadata says ${expected.size}`;
    if (expected.sha256 !== undefined && got.sha256 !== expected.sha256) {
      return `does not match the sha256 the Hub gives for it (expected ${expected.sha256}, got ${got.sha256})`;
    }
    return undefined;
  }

  private async transfer(job: FileDownload, hub: HubEndpoint, part: string, from: number): Promise<void> {
    const { context, expected, maxBytes } = job;
    const reply = await this.http.get(job.url, hub, { from }).catch((error: Error) => {
      throw new PullError(
        `${context.file} of ${context.repo}: ` +
          `${error.message}${from > 0 ? ' (its .part is kept: run the same command again to resume)' : ''}`,
      );
    });
    if (reply.status === 416 && from > 0) {
      // The server knows no such prefix (the file changed, or the .part is not one): start again from 0.
      reply.body.resume();
      rmSync(part, { force: true });
      return this.transfer(job, hub, part, 0);
    }
    if (reply.status !== 200 && reply.status !== 206) {
      reply.body.resume();
      throw statusError(reply.status, errorCodeOf(reply), context);
    }
    const range = reply.status === 206 ? contentRange(reply.headers['content-range']) : { start: 0 };
    if (!range || (reply.status === 206 && range.start !== from)) {
      reply.body.resume();
      throw new PullError(
        `the server answered the resume of ${context.file} with another byte range ` +
          `(${reply.headers['content-range'] ?? 'none'}); delete ${part} and run again`,
      );
    }
    // 200 to a Range: the server sends the whole file, so the .part starts over.
    const start = range.start;
    const length = Number(reply.headers['content-length']);
    const total =
      range.total ??
      (Number.isSafeInteger(length) && reply.headers['content-length'] !== undefined ? start + length : expected.size);
    if (total !== undefined && total > maxBytes) {
      reply.body.resume();
      rmSync(part, { force: true });
      throw new PullError(
        `${context.file} of ${context.repo} is ${formatBytes(total)}, ` +
          `over the ${formatBytes(maxBytes)} cap for one file: refused (raise --max-file-size to allow it)`,
      );
    }
    let received = start;
    let failure: unknown;
    const out = createWriteStream(part, { flags: start === 0 ? 'w' : 'a' });
    this.progress.begin(context.file, expected.size ?? total, start);
    try {
      for await (const chunk of reply.body as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > maxBytes)
          throw new PullError(
            `${context.file} of ${context.repo} grew past the ${formatBytes(maxBytes)} cap for one file while ` +
              'arriving: refused and deleted',
          );
        if (expected.size !== undefined && received > expected.size) {
          throw new PullError(
            `${context.file} of ${context.repo} arrived longer than the ${expected.size} bytes the Hub's ` +
              'metadata says: refused and deleted',
          );
        }
        this.progress.advance(chunk.length);
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } catch (error) {
      failure = error;
    } finally {
      this.progress.end();
    }
    // Every byte that arrived is written before a failure is reported, so a resume starts right after it.
    out.end();
    await finished(out).catch((error: NodeJS.ErrnoException) => {
      throw new PullError(`could not write ${part} (${error.code ?? error.message})`);
    });
    if (failure instanceof PullError) {
      rmSync(part, { force: true });
      throw failure;
    }
    if (failure !== undefined)
      throw this.interrupted(
        context,
        received,
        total,
        (failure as NodeJS.ErrnoException).code ?? (failure as Error).message,
      );
    if (total !== undefined && received < total)
      throw this.interrupted(context, received, total, 'the connection closed early');
  }

  private interrupted(context: FileContext, received: number, total: number | undefined, why: string): PullError {
    return new PullError(
      `the transfer of ${context.file} of ${context.repo} stopped after ${received} of ` +
        `${total ?? 'an unknown number of'} bytes (${why}): run the same command again to resume it`,
    );
  }
}
