import { formatBytes } from '../common/byte-count';
import type { ByteBudget } from './byte-budget';
import { MAX_SLOW_BYTES } from './slow-answer';

/** How a relayed slow answer ended, for the shadow comparison: its whole body, or why there is none. */
export type SlowBody = { body: Buffer } | { unavailable: string };

/**
 * A slow answer kept, as it is relayed, for a shadow comparison: at most MAX_SLOW_BYTES of it, and only
 * while the bytes every request keeps at once stay within the shared budget. Past either, what was kept is
 * dropped at once and the reason is told instead; the caller's answer is relayed whole either way.
 */
export class KeptAnswer {
  private chunks: Buffer[] = [];
  private size = 0;
  private taken = 0;
  private refusal?: string;

  constructor(private readonly budget: ByteBudget) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.refusal !== undefined) return;
    if (this.size > MAX_SLOW_BYTES) {
      return this.refuse(
        `the slow answer was over ${formatBytes(MAX_SLOW_BYTES)}, more than the router keeps to compare`,
      );
    }
    if (!this.budget.take(chunk.length)) {
      return this.refuse(
        `the router was keeping as much of slow answers as it may at once ` +
          `(${formatBytes(this.budget.limit)}, all requests together), so it did not keep this one to compare`,
      );
    }
    this.taken += chunk.length;
    this.chunks.push(chunk);
  }

  /** The whole body, or why it was not kept; its bytes go back to the budget. */
  finish(): SlowBody {
    const kept: SlowBody =
      this.refusal !== undefined ? { unavailable: this.refusal } : { body: Buffer.concat(this.chunks) };
    this.release();
    return kept;
  }

  /** Gives the bytes back without a body: the answer failed, or was done with. Safe to call more than once. */
  release(): void {
    this.budget.give(this.taken);
    this.taken = 0;
    this.chunks = [];
  }

  private refuse(reason: string): void {
    this.refusal = reason;
    this.release();
  }
}
