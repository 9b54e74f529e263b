/**
 * Temperature scaling written out the way the literature (and the numpy/scipy reference vectors) writes it,
 * independently of src/calibration, so that tests compare the product against something it did not compute.
 */

export const softmax = (logits: readonly number[]): number[] => {
  const top = Math.max(...logits);
  const weights = logits.map((z) => Math.exp(z - top));
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => w / total);
};

/** softmax(log(max(p, floor)) / T): the reference clips at 1e-12, the product floors at 5e-5. */
export const scaled = (p: readonly number[], t: number, floor = 1e-12): number[] => softmax(p.map((x) => Math.log(Math.max(x, floor)) / t));

/** The index of the largest probability, the first on ties. */
export const argmax = (p: readonly number[]): number => p.reduce((best, x, i) => (x > p[best] ? i : best), 0);

/** The maximum-likelihood temperature by ternary search over log T in [0.05, 20] (the log-likelihood is unimodal there). */
export function mlTemperature(probabilities: readonly (readonly number[])[], labels: readonly number[], floor = 1e-12): number {
  const nll = (t: number) => probabilities.reduce((sum, p, i) => sum - Math.log(Math.max(scaled(p, t, floor)[labels[i]], floor)), 0);
  let [lo, hi] = [Math.log(0.05), Math.log(20)];
  for (let step = 0; step < 200; step++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (nll(Math.exp(a)) <= nll(Math.exp(b))) hi = b;
    else lo = a;
  }
  return Math.exp((lo + hi) / 2);
}
