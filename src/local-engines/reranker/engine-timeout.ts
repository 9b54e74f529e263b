/**
 * The `[gateway] timeout_s` that covers a typical decision of a started engine, from the engine's own
 * self-timing: a decision the timeout cuts short falls back to the next engine (or fails), and a user who
 * sees every decision fall back concludes the engine is broken.
 */

/** A typical decision: an agent choosing among its tools, or a question with a list of options. */
export const TYPICAL_CANDIDATES = 20;

/**
 * Twice the prediction: the self-timing is a straight line through decisions of 1 and 8 candidates on a quiet
 * moment, and a real decision runs over it (at gte-reranker's real size, float32, the line put 90 candidates at
 * 9.1 s where engines/reranker/RESULTS.md measured 9.8 s; a longer state or longer descriptions cost more
 * tokens; the machine may be busy with the client itself).
 */
export const TIMEOUT_HEADROOM = 2;

/** `[gateway] timeout_s`'s maximum (config-keys.ts; test/unit/local-engines/engine-timeout.spec.ts ties the two). */
export const TIMEOUT_CAP_S = 300;

export interface TimeoutPlan {
  /** What a typical decision needs: the prediction with headroom, in whole seconds, at least 1. */
  needed_s: number;
  /** The value to have: `needed_s` (capped), or the current one when that is already as large. */
  value_s: number;
  /** The file must change to get there. */
  raise: boolean;
  /** `needed_s` is over the key's maximum: even the maximum will cut typical decisions short. */
  capped: boolean;
}

/** The timeout for a 20-candidate decision predicted at `predicted20Ms`, never below `current_s`. */
export function timeoutFor(predicted20Ms: number, current_s: number): TimeoutPlan {
  const needed_s = Math.max(1, Math.ceil((TIMEOUT_HEADROOM * predicted20Ms) / 1000));
  const wanted = Math.min(TIMEOUT_CAP_S, needed_s);
  const capped = needed_s > TIMEOUT_CAP_S;
  return current_s >= wanted
    ? { needed_s, value_s: current_s, raise: false, capped }
    : { needed_s, value_s: wanted, raise: true, capped };
}
