import { fitTemperature, LabelledAnswer, TemperatureFit } from './fit';
import { MIN_TRUSTED_N } from './fit-choice';
import {
  accuracy,
  auroc,
  BINNING,
  bootstrapInterval,
  brierScore,
  eceNoiseFloor,
  expectedCalibrationError,
  heldOutPredictions,
  meanLogLoss,
  recommendThreshold,
  scorePrediction,
  ScoredPrediction,
  thresholdTable,
  ThresholdRow,
} from './metrics';

export interface GroupReport {
  n: number;
  accuracy: number;
  accuracy_ci: [number, number] | null;
  temperature: number;
  at_bound: boolean;
  ece_before: number;
  ece_before_ci: [number, number] | null;
  ece_after: number;
  ece_after_ci: [number, number] | null;
  /** ECE after calibration on answers each fold's fit did not see (5-fold). */
  ece_held_out: number | null;
  /** The ECE a perfectly calibrated engine would show at this n and these confidences. */
  ece_noise_floor: { mean: number; p95: number };
  /** AUROC of the engine's own confidence as a score for "this answer is right". */
  auroc: number | null;
  auroc_ci: [number, number] | null;
  /** The same of the calibrated confidence (a temperature can reorder answers with different spreads). */
  auroc_after: number | null;
  log_loss_before: number;
  log_loss_after: number;
  /** Mean over answers of the squared error summed over every option. */
  brier_before: number;
  brier_after: number;
  thresholds: ThresholdRow[];
  recommended_threshold: ThresholdRow | null;
  /** No warnings: the fit is saved and applied (fit-choice.ts). */
  trusted: boolean;
  /** Plain words on why the fit should not be trusted (empty when it can be). */
  warnings: string[];
  /** What to keep in mind about the fit even so (it is trusted all the same). */
  caveats: string[];
}

/** Every metric for one group of labelled answers, before and after its own fitted temperature. */
export function reportGroup(answers: readonly LabelledAnswer[], targetAccuracy: number): GroupReport {
  const fit = fitTemperature(answers);
  return describe(
    answers.map((answer) => scorePrediction(answer)),
    answers.map((answer) => scorePrediction(answer, fit.temperature)),
    heldOutPredictions(answers),
    fit,
    targetAccuracy,
  );
}

/**
 * Answers each scaled by a temperature of their own (1 for none): the overall view, where each answer gets
 * the fit a decision would use, with `heldOut` predicted the same way from fits made without it. Its
 * `temperature` is 1 and `at_bound` false, since there is no one temperature.
 */
export function reportApplied(
  rows: readonly { answer: LabelledAnswer; temperature: number }[],
  heldOut: ScoredPrediction[] | null,
  targetAccuracy: number,
): GroupReport {
  return describe(
    rows.map(({ answer }) => scorePrediction(answer)),
    rows.map(({ answer, temperature }) => scorePrediction(answer, temperature)),
    heldOut,
    { temperature: 1, atBound: false, logLoss: Number.NaN },
    targetAccuracy,
  );
}

function describe(
  before: ScoredPrediction[],
  after: ScoredPrediction[],
  heldOut: ScoredPrediction[] | null,
  fit: TemperatureFit,
  targetAccuracy: number,
): GroupReport {
  const thresholds = thresholdTable(after);
  const report: GroupReport = {
    n: before.length,
    accuracy: accuracy(before),
    accuracy_ci: bootstrapInterval(before, accuracy),
    temperature: fit.temperature,
    at_bound: fit.atBound,
    ece_before: expectedCalibrationError(before),
    ece_before_ci: bootstrapInterval(before, (sample) => expectedCalibrationError(sample)),
    ece_after: expectedCalibrationError(after),
    ece_after_ci: bootstrapInterval(after, (sample) => expectedCalibrationError(sample)),
    ece_held_out: heldOut ? expectedCalibrationError(heldOut) : null,
    ece_noise_floor: eceNoiseFloor(after.map((p) => p.confidence)),
    auroc: auroc(before),
    auroc_ci: bootstrapInterval(before, auroc),
    auroc_after: auroc(after),
    log_loss_before: meanLogLoss(before),
    log_loss_after: meanLogLoss(after),
    brier_before: brierScore(before),
    brier_after: brierScore(after),
    thresholds,
    recommended_threshold: recommendThreshold(thresholds, targetAccuracy),
    trusted: true,
    warnings: [],
    caveats: [],
  };
  report.warnings = trustWarnings(report);
  report.caveats = trustCaveats(report);
  report.trusted = report.warnings.length === 0;
  return report;
}

type TrustFigures = Pick<GroupReport, 'n' | 'at_bound' | 'temperature' | 'ece_held_out' | 'ece_before' | 'ece_after' | 'ece_noise_floor'>;

/**
 * Plain words on why a fit should not be trusted (and so is neither saved nor applied); none when it can
 * be: too few answers, no finite optimum, no held-out check, or a fit that hurts on answers it did not see.
 */
export function trustWarnings(report: TrustFigures): string[] {
  const warnings: string[] = [];
  if (report.n < MIN_TRUSTED_N) warnings.push(`only ${report.n} labelled answers: too few to trust a fit (${MIN_TRUSTED_N} or more)`);
  if (report.at_bound) {
    warnings.push(`the temperature landed on a bound (${report.temperature.toFixed(3)}): with (almost) every answer right or wrong there is no finite optimum`);
  }
  if (report.ece_held_out === null) warnings.push('too few answers for a held-out check');
  else if (report.ece_held_out > report.ece_before) warnings.push('on held-out answers the fit makes calibration worse, not better');
  return warnings;
}

/**
 * A caveat, not a reason to refuse the fit: it still helps on held-out answers, only less than its own data
 * suggests. Refusing every fit whose held-out ECE is above the noise floor's 95% point would refuse at least
 * one sound fit in twenty by chance alone (the 400-answer groups of the calibrate e2e hit it).
 */
export function trustCaveats(report: TrustFigures): string[] {
  const { ece_held_out: heldOut, ece_before: before, ece_after: after, ece_noise_floor: floor } = report;
  if (heldOut === null || heldOut > before) return [];
  return heldOut > floor.p95 && after <= floor.p95 ? ['the fit looks calibrated on its own data but not on held-out answers'] : [];
}

export { BINNING };
