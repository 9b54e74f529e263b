import { LRUCache } from 'lru-cache';
import { IN_PROCESS, type SharedState } from '../../state/shared-state';

/** Callers whose buckets are kept; OAuth callers are named by a claim, so their number is the issuer's. */
const BUCKETS_KEPT = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * One token bucket per caller (decisions per minute, and a burst above it): a caller at full speed is held
 * to its rate and the others keep theirs. A forgotten bucket (the least recent, past the bound) starts full,
 * which only ever favours a caller that has been quiet.
 */
export class RateLimiter {
  private readonly buckets = new LRUCache<string, Bucket>({ max: BUCKETS_KEPT });
  /** Buckets never forgotten: the operator's own callers, whose number the config bounds. */
  private readonly keptBuckets = new Map<string, Bucket>();

  /** `shared`: the deployment's store (`[state] url`), which holds one bucket per caller for every replica. */
  constructor(
    private readonly now: () => number,
    private readonly shared: SharedState = IN_PROCESS,
  ) {}

  /**
   * {@link take}, in the store while it answers: one round trip (a script) takes the token from the caller's one
   * bucket, so N replicas hold it to its rate, not N times it. While the store is down or late, this process's
   * own bucket, as without a store, drawn on all along by the decisions this process let through.
   */
  takeShared(
    caller: string,
    perMinute: number,
    burst: number,
    options: { kept?: boolean } = {},
  ): number | Promise<number> {
    // Without a store (or while it is down) the answer is this process's own bucket, at once: no turn of the
    // event loop for the common deployment of one replica.
    if (perMinute <= 0) return 0;
    if (!this.shared.up()) return this.take(caller, perMinute, burst, options);
    return this.shared.take(caller, perMinute, burst).then((shared) => {
      // The own bucket is drawn on too, so a fallback (a late answer, the store gone) gives no fresh burst to a
      // caller that has just used this replica's share of it.
      const own = this.take(caller, perMinute, burst, options);
      return shared ?? own;
    });
  }

  /**
   * Takes one decision from `caller`'s bucket: 0 when it may go ahead, else the milliseconds until it may.
   * A `kept` caller's bucket is never forgotten (however many others come and go), so a caller held to its
   * rate cannot be given a fresh burst by a crowd of others.
   */
  take(caller: string, perMinute: number, burst: number, { kept = false } = {}): number {
    if (perMinute <= 0) return 0;
    const now = this.now();
    const perMs = perMinute / 60_000;
    const store = kept ? this.keptBuckets : this.buckets;
    const bucket = store.get(caller) ?? { tokens: burst, at: now };
    const tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
    if (tokens >= 1) {
      store.set(caller, { tokens: tokens - 1, at: now });
      return 0;
    }
    store.set(caller, { tokens, at: now });
    // The epsilon keeps float noise (0.999 tokens) from adding a whole millisecond.
    return Math.max(1, Math.ceil((1 - tokens) / perMs - 1e-6));
  }
}
