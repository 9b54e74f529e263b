import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyRefused } from '../common/http/body-refused';
import { declaredTooLarge, readRequestBody } from '../common/http/body-reader';
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
 * Reads request bodies with the shared reader within two caps: each body's size, checked against
 * Content-Length before any byte is read (and as it arrives when chunked), and the bytes held across all
 * requests at once, so a few big uploads cannot take the machine's memory.
 */
export class RequestBodies {
  private held = 0;

  constructor(private readonly limits: Pick<RouterLimits, 'maxBodyBytes' | 'maxBufferedBytes' | 'maxDrainBytes'>) {}

  /** Bytes held now, across requests. */
  get heldBytes(): number {
    return this.held;
  }

  async read(req: IncomingMessage, res: ServerResponse): Promise<HeldBody> {
    if (declaredTooLarge(req, this.limits.maxBodyBytes)) throw this.tooLarge();
    let reserved = 0;
    const release = () => {
      this.held -= reserved;
      reserved = 0;
    };
    const hold = (bytes: number) => {
      if (this.held + bytes > this.limits.maxBufferedBytes) throw this.busy();
      this.held += bytes;
      reserved += bytes;
    };
    try {
      const body = await readRequestBody(req, res, {
        maxBytes: this.limits.maxBodyBytes,
        tooLarge: () => this.tooLarge(),
        hold,
      });
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

  private tooLarge(): BodyRefused {
    const limit = `the router's limit of ${formatBytes(this.limits.maxBodyBytes)}`;
    return new BodyRefused(413, `the request body is over ${limit}; send large files to the upstream directly`);
  }

  private busy(): BodyRefused {
    return new BodyRefused(503, 'the router is holding as many request bodies as it may at once; retry shortly');
  }
}
