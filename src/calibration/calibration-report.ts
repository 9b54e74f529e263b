import { fitTemperature, LabelledAnswer, TemperatureFit } from './fit';
import {
  accuracy,
  auroc,
  BINNING,
  bootstrapInterval,
  eceNoiseFloor,
  expectedCalibrationError,
  heldOutPredictions,
  meanLogLoss,
  predict,
  Prediction,
  recommendThreshold,
  reliabilityBins,
  thresholdTable,
  ThresholdRow,
} from './metrics';

/** Below this many labelled answers a fit is reported but called too small to trust. */
export const MIN_TRUSTED_N = 30;

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
  auroc: number | null;
  auroc_ci: [number, number] | null;
  log_loss_before: number;
  log_loss_after: number;
  thresholds: ThresholdRow[];
  recommended_threshold: ThresholdRow | null;
  trusted: boolean;
  /** Plain words on why the fit should not be trusted (empty when it can be). */
  warnings: string[];
}

/** Every metric for one group of labelled answers, before and after its own fitted temperature. */
export function reportGroup(answers: readonly LabelledAnswer[], targetAccuracy: number): GroupReport {
  const fit = fitTemperature(answers);
  return describe(
    answers.map((answer) => predict(answer)),
    answers.map((answer) => predict(answer, fit.temperature)),
    heldOutPredictions(answers),
    fit,
    targetAccuracy,
  );
}

/**
 * The overall view: every answer scaled by its own group's temperature, and held out the same way. Its
 * `temperature` is 1 and `at_bound` false, since there is no one temperature.
 */
export function reportPooled(groups: readonly { answers: readonly LabelledAnswer[]; temperature: number }[], targetAccuracy: number): GroupReport {
  const heldOut = groups.map((group) => heldOutPredictions(group.answers));
  return describe(
    groups.flatMap((group) => group.answers.map((answer) => predict(answer))),
    groups.flatMap((group) => group.answers.map((answer) => predict(answer, group.temperature))),
    heldOut.every((predictions) => predictions === null) ? null : heldOut.flatMap((predictions) => predictions ?? []),
    { temperature: 1, atBound: false, logLoss: Number.NaN },
    targetAccuracy,
  );
}

function describe(
  before: Prediction[],
  after: Prediction[],
  heldOut: Prediction[] | null,
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
    log_loss_before: meanLogLoss(before),
    log_loss_after: meanLogLoss(after),
    thresholds,
    recommended_threshold: recommendThreshold(thresholds, targetAccuracy),
    trusted: true,
    warnings: [],
  };
  report.warnings = trustWarnings(report);
  report.trusted = report.warnings.length === 0;
  return report;
}

function trustWarnings(report: GroupReport): string[] {
  const warnings: string[] = [];
  if (report.n < MIN_TRUSTED_N) warnings.push(`only ${report.n} labelled answers: too few to trust a fit (${MIN_TRUSTED_N} or more)`);
  if (report.at_bound) {
    warnings.push(`the temperature landed on a bound (${report.temperature.toFixed(3)}): with (almost) every answer right or wrong there is no finite optimum`);
  }
  if (report.ece_held_out === null) warnings.push('too few answers for a held-out check');
  else if (report.ece_held_out > report.ece_before) warnings.push('on held-out answers the fit makes calibration worse, not better');
  else if (report.ece_held_out > report.ece_noise_floor.p95 && report.ece_after <= report.ece_noise_floor.p95) {
    warnings.push('the fit looks calibrated on its own data but not on held-out answers');
  }
  return warnings;
}

/** The reliability diagram's data, before and after. */
export function reliability(answers: readonly LabelledAnswer[], temperature: number) {
  return {
    before: reliabilityBins(answers.map((a) => predict(a))),
    after: reliabilityBins(answers.map((a) => predict(a, temperature))),
  };
}

export { BINNING };
