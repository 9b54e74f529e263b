import { PROBABILITY_FLOOR, scaleProbabilities } from './temperature';

/** One labelled answer: the engine's probabilities over the options, and the index of the right option. */
export interface LabelledAnswer {
  probabilities: readonly number[];
  label: number;
}

/** Temperatures outside this range mean the data cannot pin one down (every answer right, or all wrong). */
export const TEMPERATURE_BOUNDS = { min: 0.05, max: 20 } as const;

export interface TemperatureFit {
  temperature: number;
  /** Mean negative log-likelihood of the labels at that temperature. */
  logLoss: number;
  /**
   * The optimum lies on a bound: with every answer right the likelihood keeps rising as T -> 0, so no
   * finite temperature is the maximum and the fitted value says only "sharper than this".
   */
  atBound: boolean;
}

export function logLoss(answers: readonly LabelledAnswer[], temperature = 1): number {
  if (answers.length === 0) return Number.NaN;
  let total = 0;
  for (const { probabilities, label } of answers) {
    const scaled = temperature === 1 ? probabilities : scaleProbabilities(probabilities, temperature);
    total -= Math.log(Math.max(scaled[label], PROBABILITY_FLOOR));
  }
  return total / answers.length;
}

/**
 * Maximum-likelihood temperature. The log-likelihood of temperature scaling is concave in 1/T, so a
 * golden-section search over log T between the bounds finds the one optimum.
 */
export function fitTemperature(answers: readonly LabelledAnswer[]): TemperatureFit {
  if (answers.length === 0) throw new Error('cannot fit a temperature on no answers');
  const lo0 = Math.log(TEMPERATURE_BOUNDS.min);
  const hi0 = Math.log(TEMPERATURE_BOUNDS.max);
  const loss = (logT: number) => logLoss(answers, Math.exp(logT));
  const ratio = (Math.sqrt(5) - 1) / 2;
  let [lo, hi] = [lo0, hi0];
  let a = hi - ratio * (hi - lo);
  let b = lo + ratio * (hi - lo);
  let [fa, fb] = [loss(a), loss(b)];
  while (hi - lo > 1e-6) {
    if (fa <= fb) {
      [hi, b, fb] = [b, a, fa];
      a = hi - ratio * (hi - lo);
      fa = loss(a);
    } else {
      [lo, a, fa] = [a, b, fb];
      b = lo + ratio * (hi - lo);
      fb = loss(b);
    }
  }
  const logT = (lo + hi) / 2;
  const atBound = logT - lo0 < 1e-3 || hi0 - logT < 1e-3;
  return { temperature: Math.exp(logT), logLoss: loss(logT), atBound };
}
