import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyRefused } from '../common/http/body-refused';
import { sendContinue } from '../common/http/early-answer';
import { formatBytes } from '../common/byte-count';
import type { RouterLimits } from './router-limits';

/** The code of the OpenAI-shaped error the router answers a refused body with (it never waits out a stall). */
export const BODY_ERROR_CODES: Readonly<Record<BodyRefused['status'], string>> = {
  400: 'request_incomplete',
  408: 'request_timeout',
  413: 'request_too_large',
  503: 'router_busy',
};

/** A body read whole; its bytes count against the shared cap until `release` (once the answer is sent). */
export interface HeldBody {
  body: Buffer;
  release: () => void;
}

/**
 * Reads request bodies within two caps: each body's size, checked against Content-Length before any byte is
 * read (and as it arrives when chunked), and the bytes held across all requests at once, so a few big
 * uploads cannot take the machine's memory.
 */
export class RequestBodies {
  private held = 0;

  constructor(private readonly limits: Pick<RouterLimits, 'maxBodyBytes' | 'maxBufferedBytes' | 'maxDrainBytes'>) {}

  /** Bytes held now, across requests. */
  get heldBytes(): number {
    return this.held;
  }

  async read(req: IncomingMessage, res: ServerResponse): Promise<HeldBody> {
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && declared > this.limits.maxBodyBytes) throw this.tooLarge();
    let reserved = 0;
    const reserve = (bytes: number) => {
      if (this.held + bytes > this.limits.maxBufferedBytes) throw this.busy();
      this.held += bytes;
      reserved += bytes;
    };
    const release = () => {
      this.held -= reserved;
      reserved = 0;
    };
    reserve(declared ?? 0);
    // Only now, with room for it, is the client told to send the body it announced.
    sendContinue(req, res);
    try {
      const body = await this.collect(req, declared, (bytes) => (declared === undefined ? reserve(bytes) : undefined));
      return { body, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** How much of a body the router reads and drops after answering early (answerEarly), before cutting the socket. */
  get maxDrainBytes(): number {
    return this.limits.maxDrainBytes;
  }

  private collect(
    req: IncomingMessage,
    declared: number | undefined,
    account: (bytes: number) => void,
  ): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      // A declared length is filled in place: one copy of the body in memory, never two.
      const whole = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = (error: Error) => {
        req.off('data', onData);
        req.pause();
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        if (size + chunk.length > (whole?.length ?? this.limits.maxBodyBytes)) return stop(this.tooLarge());
        try {
          account(chunk.length);
        } catch (error) {
          return stop(error as Error);
        }
        if (whole) chunk.copy(whole, size);
        else chunks.push(chunk);
        size += chunk.length;
      };
      req.on('data', onData);
      req.once('end', () => resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks, size)));
      req.once('error', () => stop(this.incomplete()));
      req.once('close', () => {
        if (!req.complete) stop(this.incomplete());
      });
    });
  }

  private tooLarge(): BodyRefused {
    const limit = `the router's limit of ${formatBytes(this.limits.maxBodyBytes)}`;
    return new BodyRefused(413, `the request body is over ${limit}; send large files to the upstream directly`);
  }

  private busy(): BodyRefused {
    return new BodyRefused(503, 'the router is holding as many request bodies as it may at once; retry shortly');
  }

  private incomplete(): BodyRefused {
    return new BodyRefused(400, 'the request body did not arrive whole');
  }
}
