import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyRefused } from '../common/http/body-refused';
import { readRequestBody } from '../common/http/body-reader';

/** The words of a 413, the same whether Content-Length said so or the bytes did. */
export const tooLargeMessage = (maxBytes: number) =>
  `the request body is over this server's limit of ${maxBytes} bytes ([http] max_body_bytes)`;

/** The words of a 408: the body stopped arriving. */
export const stalledMessage = (idleMs: number) =>
  `the request body stalled: nothing of it arrived for ${idleMs / 1000} s ([http] body_idle_timeout_s)`;

/**
 * Reads a request body of at most `maxBytes` with the shared reader, in this server's words, giving up when no
 * byte of it arrives for `idleMs`.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, idleMs: number): Promise<Buffer> {
  return readRequestBody(req, res, {
    maxBytes,
    tooLarge: () => new BodyRefused(413, tooLargeMessage(maxBytes)),
    idle: { ms: idleMs, stalled: () => new BodyRefused(408, stalledMessage(idleMs)) },
  });
}
