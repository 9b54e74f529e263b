import { PassThrough, type Readable } from 'node:stream';
import { type ErrorReply, errorReply, INVALID_REQUEST, readMessage } from './envelope';

/** The longest line a client may send: the largest valid request is a few hundred KiB. */
export const MAX_LINE_BYTES = 1024 * 1024;

export type { ErrorReply } from './envelope';

/**
 * Reads stdin line by line for the stdio transport (stdio-line.transport.ts). The MCP SDK answers nothing to
 * a line that is not JSON, is a batch or is not a JSON-RPC 2.0 message it can read (it logs a dump of its
 * schema errors instead), and ends the session when one line passes 10 MiB: such lines are answered here
 * with a JSON-RPC error (a response from the client that does not fit is dropped with `drop`'s line:
 * responses are never answered). Every well-formed message comes out of the returned object-mode stream
 * parsed, once. An oversized line is discarded as it streams in, never held whole in memory.
 */
export function guardStdin(
  input: Readable,
  reply: (message: ErrorReply) => void,
  maxLineBytes = MAX_LINE_BYTES,
  drop: (why: string) => void = () => undefined,
): Readable {
  const output = new PassThrough({ objectMode: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  let head = '';

  const finishLine = (line: Buffer) => {
    if (oversized) {
      reply(errorReply(idFrom(head), INVALID_REQUEST, `message too large: lines are limited to ${maxLineBytes} bytes`));
      return;
    }
    const text = line.toString('utf8').trim();
    if (text === '') return;
    const read = readMessage(text, 'line');
    if ('drop' in read) return drop(read.drop);
    if ('reply' in read) return reply(read.reply);
    output.write(read.message);
  };

  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      collect(chunk.subarray(start, newline));
      finishLine(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      oversized = false;
      head = '';
      start = newline + 1;
    }
    collect(chunk.subarray(start));
  });
  input.on('end', () => {
    if (pendingBytes > 0 || oversized) finishLine(Buffer.concat(pending));
    output.end();
  });
  input.on('error', (error) => output.destroy(error));

  function collect(part: Buffer) {
    if (part.length === 0) return;
    if (oversized) return;
    if (pendingBytes + part.length > maxLineBytes) {
      // Keep the start of the message, where the id usually is, and drop the rest as it arrives.
      head = Buffer.concat([...pending, part])
        .subarray(0, 512)
        .toString('utf8');
      oversized = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(part);
    pendingBytes += part.length;
  }

  return output;
}

/** The request id from the start of an oversized message, so the client can match the error to its call. */
function idFrom(head: string): string | number | null {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head);
  if (!match) return null;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return null;
  }
}
