import type { PoolMember } from '../registry/engine-pool';

/** A replica the balancer may pick: its share of the traffic and its load now. */
export interface Candidate {
  member: PoolMember;
  inFlight: number;
  /** Moving average of its latency; undefined before its first answer. */
  ewmaMs?: number;
}

/**
 * The replica to send a request to: the fewest requests in flight for its weight ((in flight + 1) / weight),
 * ties to the lower moving average of latency, then to `turn` (a counter the caller advances) so equal replicas
 * share the remaining ties in turn. Least-in-flight follows a slow replica at once (its requests pile up) where
 * latency alone lags behind; the average only settles ties, which are the rule at low load. A replica not yet
 * measured wins its ties, so it gets a first sample. bench/pools.js measures the rule against round robin.
 *
 * @example
 * pickEndpoint([{ member: a, inFlight: 2 }, { member: b, inFlight: 1 }], 0) // b
 */
export function pickEndpoint(candidates: readonly Candidate[], turn: number): Candidate | undefined {
  let best: Candidate | undefined;
  let bestIndex = -1;
  const offset = candidates.length > 0 ? turn % candidates.length : 0;
  for (let i = 0; i < candidates.length; i++) {
    // Scanning from a rotating start makes the last tie-break a turn, without a second pass.
    const index = (i + offset) % candidates.length;
    const candidate = candidates[index];
    if (!best || better(candidate, best)) {
      best = candidate;
      bestIndex = index;
    }
  }
  return bestIndex < 0 ? undefined : best;
}

function better(a: Candidate, b: Candidate): boolean {
  const load = (c: Candidate) => (c.inFlight + 1) / c.member.weight;
  if (load(a) !== load(b)) return load(a) < load(b);
  return (a.ewmaMs ?? 0) < (b.ewmaMs ?? 0);
}
