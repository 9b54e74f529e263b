/**
 * A `min_confidence` chosen with a stated guarantee (Learn-then-Test with fixed-sequence testing and exact
 * binomial p-values): with probability at least 1 - risk, the accuracy of decisions at or above the threshold
 * is at least the target on new decisions from the same source. docs/calibration.md states the rule.
 */

export interface GuaranteeOptions {
  /** The accuracy the decisions kept must reach, in [0, 1]. */
  targetAccuracy: number;
  /** The chance the guarantee is allowed to fail (δ), in (0, 1). */
  risk: number;
}

/** The threshold the rule recommends, with the evidence that vouches for it. */
export interface GuaranteedThreshold {
  threshold: number;
  /** Share of the answers at or above the threshold. */
  coverage: number;
  n: number;
  errors: number;
  /** P(Binomial(n, 1 - target) <= errors): how likely so few errors were at an accuracy below the target. */
  p_value: number;
  target_accuracy: number;
  risk: number;
}

/** The guarantee and, when there is none, how many more labelled answers would give one. */
export interface ThresholdGuarantee {
  guaranteed_threshold: GuaranteedThreshold | null;
  /** Null when a threshold qualifies, or when no number of answers would at the observed rates. */
  answers_needed: number | null;
}

/** The risk `calibrate` and `evaluate` take when none is given: the guarantee holds 95 times in 100. */
export const DEFAULT_RISK = 0.05;

/** 0.99, 0.98, ..., 0.00: strictest first, the order the rule tests them in. */
export const GUARANTEE_GRID: readonly number[] = Array.from({ length: 100 }, (_, i) => (99 - i) / 100);

/** Beyond this many answers in all, `answers_needed` says none is within reach. */
const MAX_ANSWERS_NEEDED = 100_000;

/**
 * The threshold the rule recommends on labelled answers, or null when none is rejected. `confidences[i]` is
 * what a decision would see for answer i, `correct[i]` whether it was right.
 *
 * @example
 * guaranteedThreshold([0.97, 0.95, 0.6], [true, true, false], { targetAccuracy: 0.9, risk: 0.05 });
 */
export function guaranteedThreshold(
  confidences: readonly number[],
  correct: readonly boolean[],
  options: GuaranteeOptions,
): GuaranteedThreshold | null {
  checkInput(confidences, correct, options);
  return fixedSequence(keptCounts(confidences, correct), confidences.length, options);
}

/**
 * How many more labelled answers the rule would need, at the observed error rates: the fewest more at which some
 * threshold, keeping its share of the answers and erring at its observed rate (its n and errors scaled up in
 * proportion), would be rejected. A floor for the rule, which also tests the thresholds above it first; scaling
 * the whole sequence instead would let one wrong answer at the top, scaled up, stop it for ever. Null when a
 * threshold already qualifies, or when none would within 100,000 answers in all (each errs too often).
 */
export function answersNeeded(
  confidences: readonly number[],
  correct: readonly boolean[],
  options: GuaranteeOptions,
): number | null {
  checkInput(confidences, correct, options);
  const counts = keptCounts(confidences, correct);
  const total = confidences.length;
  if (total === 0 || fixedSequence(counts, total, options)) return null;
  // One candidate per distinct count: many thresholds keep the same answers.
  const candidates = [...new Map(counts.map((kept) => [`${kept.n}/${kept.errors}`, kept])).values()].filter(
    ({ n, errors }) => n > 0 && errors / n < 1 - options.targetAccuracy,
  );
  const someRejectedAt = (scaledTotal: number) =>
    candidates.some(({ n, errors }) => {
      const scale = scaledTotal / total;
      return rejects(Math.round(n * scale), Math.round(errors * scale), options);
    });
  // Monotone but for rounding (more answers at the same rates only strengthen a test): double, then bisect.
  let low = total;
  let high = total * 2;
  while (!someRejectedAt(high)) {
    if (high >= MAX_ANSWERS_NEEDED) return null;
    low = high;
    high = Math.min(high * 2, MAX_ANSWERS_NEEDED);
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (someRejectedAt(middle)) high = middle;
    else low = middle;
  }
  return high - total;
}

/** Both at once: what `calibrate` and `evaluate` report. */
export function thresholdGuarantee(
  confidences: readonly number[],
  correct: readonly boolean[],
  options: GuaranteeOptions,
): ThresholdGuarantee {
  const guaranteed = guaranteedThreshold(confidences, correct, options);
  return {
    guaranteed_threshold: guaranteed,
    answers_needed: guaranteed ? null : answersNeeded(confidences, correct, options),
  };
}

/** Whether this many answers kept could reject at all, even with none wrong (target^n <= risk). */
export function canReject(n: number, { targetAccuracy, risk }: GuaranteeOptions): boolean {
  return Math.pow(targetAccuracy, n) <= risk;
}

/** P(Binomial(n, p) <= k), summed in log space so that no term underflows at large n. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n || p === 0) return 1;
  if (p === 1) return 0;
  const logOdds = Math.log(p) - Math.log1p(-p);
  // Term i is C(n, i) p^i (1 - p)^(n - i); each follows from the last, and the sum is kept relative to its largest.
  let logTerm = n * Math.log1p(-p);
  let top = logTerm;
  let sum = 1;
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + logOdds;
    if (logTerm > top) {
      sum = sum * Math.exp(top - logTerm) + 1;
      top = logTerm;
    } else sum += Math.exp(logTerm - top);
  }
  return Math.min(1, Math.exp(top + Math.log(sum)));
}

interface Kept {
  threshold: number;
  n: number;
  errors: number;
}

/** For each threshold of the grid, in its order, the answers at or above it and how many of those were wrong. */
function keptCounts(confidences: readonly number[], correct: readonly boolean[]): Kept[] {
  // atStep[k]: answers whose highest grid threshold reached is k / 100.
  const atStep = new Array<number>(100).fill(0);
  const wrongAtStep = new Array<number>(100).fill(0);
  confidences.forEach((confidence, i) => {
    let step = Math.min(99, Math.floor(confidence * 100));
    // The floor of a product can miss by one either way; the comparison the rule states is confidence >= k / 100.
    if (step / 100 > confidence) step -= 1;
    else if (step < 99 && (step + 1) / 100 <= confidence) step += 1;
    atStep[step] += 1;
    if (!correct[i]) wrongAtStep[step] += 1;
  });
  let n = 0;
  let errors = 0;
  return GUARANTEE_GRID.map((threshold, i) => {
    n += atStep[99 - i];
    errors += wrongAtStep[99 - i];
    return { threshold, n, errors };
  });
}

/**
 * The rule: skip a threshold that could not reject even with no error (that depends on the confidences only,
 * so the order of the tests stays fixed before the labels are read); test the rest in order, stopping at the
 * first not rejected; the last one rejected is the recommendation.
 */
function fixedSequence(counts: readonly Kept[], total: number, options: GuaranteeOptions): GuaranteedThreshold | null {
  let last: GuaranteedThreshold | null = null;
  for (const { threshold, n, errors } of counts) {
    if (!canReject(n, options)) continue;
    const pValue = pValueOf(n, errors, options);
    if (pValue > options.risk) break;
    last = {
      threshold,
      coverage: n / total,
      n,
      errors,
      p_value: pValue,
      target_accuracy: options.targetAccuracy,
      risk: options.risk,
    };
  }
  return last;
}

/** p = P(Binomial(n, 1 - target) <= errors), the evidence that the accuracy of these n is below the target. */
function pValueOf(n: number, errors: number, { targetAccuracy }: GuaranteeOptions): number {
  return binomialCdf(errors, n, 1 - targetAccuracy);
}

/** Whether n answers with these errors reject "accuracy below the target" on their own. */
function rejects(n: number, errors: number, options: GuaranteeOptions): boolean {
  // At or above the mean error count the tail is at least a half (a binomial's median is within one of its
  // mean): not rejected at any risk under a half, and no sum of thousands of terms to find that out.
  if (options.risk < 0.5 && errors >= Math.ceil(n * (1 - options.targetAccuracy))) return false;
  return canReject(n, options) && pValueOf(n, errors, options) <= options.risk;
}

/** A library caller's data checked once, each problem named by its field. */
function checkInput(confidences: readonly number[], correct: readonly boolean[], options: GuaranteeOptions): void {
  if (!Array.isArray(confidences)) throw new TypeError('confidences must be an array of numbers in [0, 1]');
  if (!Array.isArray(correct)) throw new TypeError('correct must be an array of booleans');
  if (confidences.length !== correct.length) {
    throw new RangeError(
      `confidences and correct must be as long as each other (${confidences.length} and ${correct.length})`,
    );
  }
  const badConfidence = confidences.findIndex((c) => typeof c !== 'number' || !(c >= 0 && c <= 1));
  if (badConfidence >= 0) {
    throw new RangeError(
      `confidences[${badConfidence}] must be a number in [0, 1], got ${describe(confidences[badConfidence])}`,
    );
  }
  const badFlag = correct.findIndex((flag) => typeof flag !== 'boolean');
  if (badFlag >= 0) throw new TypeError(`correct[${badFlag}] must be true or false, got ${describe(correct[badFlag])}`);
  const { targetAccuracy, risk } = (options ?? {}) as Partial<GuaranteeOptions>;
  if (typeof targetAccuracy !== 'number' || !(targetAccuracy >= 0 && targetAccuracy <= 1))
    throw new RangeError(`targetAccuracy must be a number in [0, 1], got ${describe(targetAccuracy)}`);
  if (typeof risk !== 'number' || !(risk > 0 && risk < 1))
    throw new RangeError(`risk must be a number between 0 and 1 (both excluded), got ${describe(risk)}`);
}

/** A bad value as an error shows it: short, and never a whole object a caller passed by mistake. */
function describe(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return `a ${typeof value}`;
}
