import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { isRecord } from '../common/is-record';
import { formatBytes } from '../common/byte-count';
import type { Endpoint } from './request-eligibility';

/**
 * The most of a slow answer kept for a shadow comparison, as it came and once decompressed: a few KiB of
 * gzip or brotli can inflate to gigabytes, which would take the router's memory and stall every caller.
 */
export const MAX_SLOW_BYTES = 8 * 1024 * 1024;

/** The JSON object inside a slow answer (absent when there is none to read), or why it was not read. */
export type SlowReading = { object?: Record<string, unknown> } | { unavailable: string };

/**
 * The JSON object inside the slow model's answer, for shadow comparisons: the message content of a
 * `chat.completion`, or the first `output_text` of a Responses `response`. No object when the body cannot be
 * read as one (an unknown encoding, a refusal, text that is not JSON); `unavailable` when it is too big to read.
 */
export function readSlowAnswer(endpoint: Endpoint, body: Buffer, contentEncoding: string | undefined): SlowReading {
  let plain: Buffer;
  try {
    plain = decoded(body, contentEncoding);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') return {};
    const limit = formatBytes(MAX_SLOW_BYTES);
    return { unavailable: `the slow answer decompresses to over ${limit}, more than the router keeps to compare` };
  }
  try {
    const document: unknown = JSON.parse(plain.toString('utf8'));
    const text = endpoint === 'chat.completions' ? chatText(document) : responsesText(document);
    const object: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
    return isRecord(object) ? { object } : {};
  } catch {
    return {};
  }
}

/** The body as sent before compression; zlib stops at the limit and throws ERR_BUFFER_TOO_LARGE. */
function decoded(body: Buffer, encoding = 'identity'): Buffer {
  const limit: ZlibOptions = { maxOutputLength: MAX_SLOW_BYTES };
  switch (encoding.trim().toLowerCase()) {
    case 'identity':
    case '':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, limit);
    case 'deflate':
      return inflateSync(body, limit);
    case 'br':
      return brotliDecompressSync(body, limit);
    default:
      throw new Error('unknown content encoding');
  }
}

function chatText(document: unknown): unknown {
  if (!isRecord(document) || !Array.isArray(document.choices)) return undefined;
  const first: unknown = document.choices[0];
  return isRecord(first) && isRecord(first.message) ? first.message.content : undefined;
}

function responsesText(document: unknown): unknown {
  if (!isRecord(document) || !Array.isArray(document.output)) return undefined;
  for (const item of document.output) {
    if (!isRecord(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    const part: unknown = item.content.find((entry) => isRecord(entry) && entry.type === 'output_text');
    if (isRecord(part)) return part.text;
  }
  return undefined;
}
