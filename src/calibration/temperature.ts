/**
 * Temperature scaling on an engine's probabilities: p_i^(1/T), renormalised, the same as dividing the
 * log-probabilities by T inside a softmax. T < 1 sharpens an under-confident engine, T > 1 softens an
 * over-confident one, and because x -> x^(1/T) is increasing the order of the options never changes.
 */

/**
 * Probabilities below this are treated as this, so log p stays finite. Engines round their probabilities
 * (Laya to 4 decimals), so a reported 0 means "below 0.00005", not impossible: treating it as 1e-12 would
 * let one rounded-away label dominate a fit.
 */
export const PROBABILITY_FLOOR = 5e-5;

// Bound once: a global lookup per call is slow inside a vm context (Jest's), and a fit calls this a lot.
const { exp, log, max } = Math;

export function scaleProbabilities(probabilities: readonly number[], temperature: number): number[] {
  const logits = probabilities.map((p) => log(max(p, PROBABILITY_FLOOR)) / temperature);
  const top = max(...logits);
  const weights = logits.map((logit) => exp(logit - top));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}

/** The same on a named distribution (the shape answers carry), keeping the key order. */
export function scaleNamed(
  probabilities: Readonly<Record<string, number>>,
  temperature: number,
): Record<string, number> {
  const keys = Object.keys(probabilities);
  const scaled = scaleProbabilities(
    keys.map((key) => probabilities[key]),
    temperature,
  );
  return Object.fromEntries(keys.map((key, i) => [key, scaled[i]]));
}
