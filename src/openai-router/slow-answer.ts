import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { isRecord } from '../common/is-record';
import type { Endpoint } from './request-eligibility';

/**
 * The JSON object inside the slow model's answer, for shadow comparisons: the message content of a
 * `chat.completion`, or the first `output_text` of a Responses `response`. Undefined when the body cannot be
 * read as one (an error status, an unknown encoding, a refusal, text that is not JSON).
 */
export function slowObject(
  endpoint: Endpoint,
  body: Buffer,
  contentEncoding: string | undefined,
): Record<string, unknown> | undefined {
  try {
    const document: unknown = JSON.parse(decoded(body, contentEncoding).toString('utf8'));
    const text = endpoint === 'chat.completions' ? chatText(document) : responsesText(document);
    const object: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
    return isRecord(object) ? object : undefined;
  } catch {
    return undefined;
  }
}

function decoded(body: Buffer, encoding = 'identity'): Buffer {
  switch (encoding.trim().toLowerCase()) {
    case 'identity':
    case '':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
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
