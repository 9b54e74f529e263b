import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyRefused } from '../common/http/body-refused';
import { sendContinue } from '../common/http/early-answer';

/** The words of a 413, the same whether Content-Length said so or the bytes did. */
export const tooLargeMessage = (maxBytes: number) =>
  `the request body is over this server's limit of ${maxBytes} bytes ([http] max_body_bytes)`;

/** The declared Content-Length, when it is over `maxBytes`: checked before a byte of the body is read. */
export function declaredTooLarge(req: IncomingMessage, maxBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** The words of a 408: the body stopped arriving. */
export const stalledMessage = (idleMs: number) =>
  `the request body stalled: nothing of it arrived for ${idleMs / 1000} s ([http] body_idle_timeout_s)`;

/**
 * Reads a request body of at most `maxBytes` (a chunked body is counted as it arrives, and reading stops at
 * the cap), giving up when no byte of it arrives for `idleMs`. A client that asked for 100 Continue is told
 * to send only now.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, idleMs: number): Promise<Buffer> {
  sendContinue(req, res);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const stop = (error: BodyRefused) => {
      clearTimeout(idle);
      req.off('data', onData);
      req.pause();
      reject(error);
    };
    const waitForMore = () => {
      clearTimeout(idle);
      idle = setTimeout(() => stop(new BodyRefused(408, stalledMessage(idleMs))), idleMs);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return stop(new BodyRefused(413, tooLargeMessage(maxBytes)));
      chunks.push(chunk);
      waitForMore();
    };
    waitForMore();
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(idle);
      resolve(Buffer.concat(chunks, size));
    });
    req.once('error', () => stop(new BodyRefused(400, 'the request body did not arrive whole')));
    req.once('close', () => {
      if (!req.complete) stop(new BodyRefused(400, 'the request body did not arrive whole'));
    });
  });
}
