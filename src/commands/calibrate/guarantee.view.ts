import type { GuaranteedThreshold, ThresholdGuarantee } from '../../calibration/guaranteed-threshold';
import { percent } from '../number-format';

/** A share in words, as exact as it was given: 0.9 is "90%", 0.975 "97.5%". */
export const share = (value: number) => `${Number((value * 100).toFixed(2))}%`;

/** The guarantee in one sentence: what a user may rely on, and under what condition. */
export function guaranteeSentence(found: GuaranteedThreshold): string {
  return (
    `With probability at least ${share(1 - found.risk)}, new decisions from the same source ` +
    `at confidence ${found.threshold.toFixed(2)} or above are right at least ${share(found.target_accuracy)} of the time.`
  );
}

/** The figures behind it on one line: the threshold, its coverage, n, errors and p-value. */
export function guaranteeFigures(found: GuaranteedThreshold): string {
  return (
    `${found.threshold.toFixed(2)} (decides ${percent(found.coverage, 1)}, n ${found.n}, ` +
    `${found.errors} errors, p-value ${found.p_value.toPrecision(3)})`
  );
}

/** Why there is none, and what would give one. */
export function noGuarantee(
  { answers_needed: needed }: Pick<ThresholdGuarantee, 'answers_needed'>,
  target: number,
  risk: number,
): string {
  const none = `none reaches ${share(target)} accuracy at risk ${risk}`;
  return needed === null
    ? `${none}, and more answers at the observed error rates would not give one`
    : `${none}: about ${needed} more labelled answers at the observed error rate would be needed`;
}
