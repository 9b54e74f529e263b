import { fitTemperature, type LabelledAnswer, type TemperatureFit } from './fit';
import { MIN_TRUSTED_N } from './fit-choice';
import { PROBABILITY_FLOOR } from './temperature';
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
  type ScoredPrediction,
  thresholdTable,
  type ThresholdRow,
} from './calibration-metrics';

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
  /** ECE after calibration on answers each fold's fit did not see (5 stratified folds): a figure, not the judge. */
  ece_held_out: number | null;
  /** The ECE a perfectly calibrated engine would show at this n and these confidences. */
  ece_noise_floor: { mean: number; p95: number };
  /** Log loss and Brier score on the same held-out answers: the judge, against log_loss_before and brier_before. */
  log_loss_held_out: number | null;
  brier_held_out: number | null;
  /** The standard error of the held-out log-loss gain (per answer, raw minus held-out fit): its noise. */
  log_loss_gain_se: number | null;
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
  /** One line on why the fit is trusted or not. */
  verdict: string;
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
    log_loss_held_out: heldOut ? meanLogLoss(heldOut) : null,
    brier_held_out: heldOut ? brierScore(heldOut) : null,
    log_loss_gain_se: heldOut ? pairedStandardError(before, heldOut) : null,
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
    verdict: '',
    warnings: [],
    caveats: [],
  };
  report.warnings = trustWarnings(report);
  report.caveats = trustCaveats(report);
  report.trusted = report.warnings.length === 0;
  report.verdict = trustVerdict(report);
  return report;
}

type TrustFigures = Pick<
  GroupReport,
  | 'n'
  | 'at_bound'
  | 'temperature'
  | 'ece_held_out'
  | 'ece_before'
  | 'ece_after'
  | 'ece_noise_floor'
  | 'log_loss_before'
  | 'log_loss_held_out'
  | 'brier_before'
  | 'brier_held_out'
  | 'log_loss_gain_se'
>;

/** "log loss 1.156 -> 1.045 and Brier 0.690 -> 0.628": the raw engine's scores, then the held-out fit's. */
function heldOutScores(report: TrustFigures): string {
  return (
    `log loss ${report.log_loss_before.toFixed(3)} -> ${report.log_loss_held_out!.toFixed(3)} ` +
    `and Brier ${report.brier_before.toFixed(3)} -> ${report.brier_held_out!.toFixed(3)}`
  );
}

/**
 * Plain words on why a fit should not be trusted (and so is neither saved nor applied); none when it can
 * be: too few answers, no finite optimum, no held-out check, or a fit that does not beat the raw engine on
 * answers it did not see by both proper scoring rules, its log-loss gain beyond one standard error (a
 * well-calibrated engine's fit wins by chance one time in four; by more than its noise, rarely). Each
 * answer is held out once, so the raw engine's scores on the held-out answers are its scores on all of
 * them. Binned ECE does not judge: on a small sample it measures the split and the bins as much as the fit.
 */
export function trustWarnings(report: TrustFigures): string[] {
  const warnings: string[] = [];
  if (report.n < MIN_TRUSTED_N)
    warnings.push(`only ${report.n} labelled answers: too few to trust a fit (${MIN_TRUSTED_N} or more)`);
  if (report.at_bound) {
    warnings.push(
      `the temperature landed on a bound (${report.temperature.toFixed(3)}): ` +
        'with (almost) every answer right or wrong there is no finite optimum',
    );
  }
  const { log_loss_held_out: logLoss, brier_held_out: brier, log_loss_gain_se: noise } = report;
  if (logLoss === null || brier === null || noise === null) warnings.push('too few answers for a held-out check');
  else if (!(logLoss < report.log_loss_before && brier < report.brier_before)) {
    warnings.push(`not needed: on held-out answers the fit does not beat the raw engine (${heldOutScores(report)})`);
  } else if (report.log_loss_before - logLoss <= noise) {
    warnings.push(
      `harmless but not shown to help: on held-out answers ${heldOutScores(report)}, ` +
        `a log-loss gain within its noise (${noise.toFixed(3)})`,
    );
  }
  return warnings;
}

/**
 * A caveat, not a reason to refuse the fit: it beats the raw engine on held-out answers, but its held-out
 * ECE stays above the noise floor's 95% point while its own data's is below it.
 */
export function trustCaveats(report: TrustFigures): string[] {
  const { ece_held_out: heldOut, ece_after: after, ece_noise_floor: floor } = report;
  if (heldOut === null || trustWarnings(report).length > 0) return [];
  return heldOut > floor.p95 && after <= floor.p95
    ? ['the fit looks calibrated on its own data but less so on held-out answers']
    : [];
}

/** The one line a report gives each fit: trusted because it beats the raw engine on held-out answers, or why not. */
export function trustVerdict(report: TrustFigures): string {
  const warnings = trustWarnings(report);
  if (warnings.length) return `not trusted: ${warnings.join('; ')}`;
  return (
    'trusted: on held-out answers (5 stratified folds) it beats the raw engine, ' +
    `${heldOutScores(report)} (log-loss noise ${report.log_loss_gain_se!.toFixed(3)})`
  );
}

/** The standard error of the mean per-answer log-loss gain of `after` over `before` (paired by answer). */
function pairedStandardError(before: readonly ScoredPrediction[], after: readonly ScoredPrediction[]): number {
  const gains = before.map(
    (p, i) =>
      Math.log(Math.max(after[i].labelProbability, PROBABILITY_FLOOR)) -
      Math.log(Math.max(p.labelProbability, PROBABILITY_FLOOR)),
  );
  const mean = gains.reduce((sum, g) => sum + g, 0) / gains.length;
  const variance = gains.reduce((sum, g) => sum + (g - mean) ** 2, 0) / Math.max(gains.length - 1, 1);
  return Math.sqrt(variance / gains.length);
}

export { BINNING };
