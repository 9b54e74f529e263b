import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyRefused } from './body-refused';
import { sendContinue } from './early-answer';

/** What one server allows a request body, and the words it refuses one with (each server has its own). */
export interface BodyRules {
  /** The most bytes one body may have. */
  maxBytes: number;
  /** The 413 for a body over `maxBytes`, whether its Content-Length said so or its bytes did. */
  tooLarge: () => BodyRefused;
  /** Gives up on a body of which nothing arrived for `ms`; without it, the socket's own timeouts decide. */
  idle?: { ms: number; stalled: () => BodyRefused };
  /**
   * Told of the bytes the reader is about to hold, before it holds them: a declared length at once (its buffer
   * is that size), a chunked body chunk by chunk. A BodyRefused it throws (a shared budget spent) ends the read.
   */
  hold?: (bytes: number) => void;
}

/**
 * Whether the request's Content-Length is over `maxBytes`: each server asks this first, and answers a 413 in
 * its own way before reading a byte of the body (or, for the router, before reserving room for it).
 */
export function declaredTooLarge(req: IncomingMessage, maxBytes: number): boolean {
  const declared = declaredLength(req);
  return declared !== undefined && declared > maxBytes;
}

/**
 * Reads a request body within `rules`: a client that asked for 100 Continue is told to send it only now (once
 * `hold` has room for a declared length), the bytes are counted as they arrive and reading stops at the cap,
 * and a body cut off by the client is a 400. Every refusal is a {@link BodyRefused}.
 */
export async function readRequestBody(req: IncomingMessage, res: ServerResponse, rules: BodyRules): Promise<Buffer> {
  // A length over the cap (a server that did not ask declaredTooLarge) is read as a chunked body: up to the cap.
  const length = declaredLength(req);
  const declared = length !== undefined && length <= rules.maxBytes ? length : undefined;
  if (declared !== undefined) rules.hold?.(declared);
  sendContinue(req, res);
  return collect(req, declared, rules);
}

/** The Content-Length a request declares; undefined for a chunked body (Node's parser refuses a malformed one). */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  const declared = header === undefined ? Number.NaN : Number(header);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

function collect(req: IncomingMessage, declared: number | undefined, rules: BodyRules): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A declared length is filled in place (one copy of the body in memory, never two) only where the server
    // holds room for it: elsewhere a client announcing a big body and sending nothing would hold that memory.
    const whole = declared !== undefined && rules.hold ? Buffer.allocUnsafe(declared) : undefined;
    const cap = declared ?? rules.maxBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const stop = (error: Error) => {
      clearTimeout(idle);
      req.off('data', onData);
      req.pause();
      reject(error);
    };
    const waitForMore = () => {
      if (!rules.idle) return;
      const { ms, stalled } = rules.idle;
      clearTimeout(idle);
      idle = setTimeout(() => stop(stalled()), ms);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > cap) return stop(rules.tooLarge());
      if (declared === undefined) {
        try {
          rules.hold?.(chunk.length);
        } catch (error) {
          return stop(error as Error);
        }
      }
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
      waitForMore();
    };
    const incomplete = () => stop(new BodyRefused(400, 'the request body did not arrive whole'));
    waitForMore();
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(idle);
      resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks, size));
    });
    req.once('error', incomplete);
    req.once('close', () => {
      if (!req.complete) incomplete();
    });
  });
}
