import { shown } from '../../common/clip';
import { isRecord, kindOf } from '../../common/is-record';

/**
 * Rounded probabilities sum to 0.99..1.01 on real engines (wire-contracts §1.2); a sum further from 1 than
 * this is not rounding but a broken distribution.
 */
export const PROBABILITY_SUM_TOLERANCE = 0.02;

/** Engines round each probability to 2 decimals: each may be off by half a hundredth, so the sum by n of those. */
export const sumTolerance = (candidates: number) => Math.max(PROBABILITY_SUM_TOLERANCE, 0.005 * candidates);

export const isProbability = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;

/**
 * Reads an engine's `probabilities` over exactly `keys`: every key a number in [0, 1], no other key, a sum
 * of about 1. Returns them in `keys` order, or what was wrong as a phrase.
 */
export type ReadDistribution = { ok: true; probabilities: Record<string, number> } | { ok: false; problem: string };

export function readDistribution(probabilities: unknown, keys: readonly string[]): ReadDistribution {
  if (!isRecord(probabilities))
    return { ok: false, problem: `"probabilities" is ${kindOf(probabilities)}, not an object` };
  // A Set, not keys.includes: a question may have hundreds of candidates and the reply as many keys.
  const sent = new Set(keys);
  for (const key of Object.keys(probabilities)) {
    if (!sent.has(key))
      return { ok: false, problem: `"probabilities" name ${shown(key)}, which is not one of the options sent` };
  }
  const ordered: Record<string, number> = {};
  let sum = 0;
  for (const key of keys) {
    const value = Object.hasOwn(probabilities, key) ? probabilities[key] : undefined;
    if (value === undefined) return { ok: false, problem: `"probabilities" lack the option ${shown(key)}` };
    if (!isProbability(value))
      return { ok: false, problem: `the probability of ${shown(key)} is ${shown(value)}, not a number in [0, 1]` };
    // defineProperty: an option may be named like an Object.prototype member ("constructor").
    Object.defineProperty(ordered, key, { value, enumerable: true, writable: true, configurable: true });
    sum += value;
  }
  if (Math.abs(sum - 1) > sumTolerance(keys.length))
    return { ok: false, problem: `"probabilities" sum to ${Number(sum.toFixed(4))}, not about 1` };
  return { ok: true, probabilities: ordered };
}
