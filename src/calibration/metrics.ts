import { fitTemperature, LabelledAnswer } from './fit';
import { seededRandom } from './random';
import { PROBABILITY_FLOOR, scaleProbabilities } from './temperature';

/** What the metrics need from one answer: the confidence of the chosen option and whether it was right. */
export interface Prediction {
  confidence: number;
  correct: boolean;
  /** The probability the engine gave the right option (for log loss). */
  labelProbability: number;
}

/** The decision is the most probable option; its probability is the confidence. */
export function predict({ probabilities, label }: LabelledAnswer, temperature = 1): Prediction {
  const scaled = temperature === 1 ? [...probabilities] : scaleProbabilities(probabilities, temperature);
  let best = 0;
  for (let i = 1; i < scaled.length; i++) if (scaled[i] > scaled[best]) best = i;
  return { confidence: scaled[best], correct: best === label, labelProbability: scaled[label] };
}

export const ECE_BINS = 10;
export const BINNING = `${ECE_BINS} equal-width confidence bins over [0, 1], each weighted by its share of answers`;

export function accuracy(predictions: readonly Prediction[]): number {
  return predictions.length ? predictions.filter((p) => p.correct).length / predictions.length : Number.NaN;
}

/** Expected calibration error: the answer-weighted gap between accuracy and mean confidence per bin. */
export function expectedCalibrationError(predictions: readonly Prediction[], bins = ECE_BINS): number {
  if (predictions.length === 0) return Number.NaN;
  const sums = Array.from({ length: bins }, () => ({ n: 0, confidence: 0, correct: 0 }));
  for (const { confidence, correct } of predictions) {
    const bin = sums[Math.min(Math.floor(confidence * bins), bins - 1)];
    bin.n += 1;
    bin.confidence += confidence;
    bin.correct += correct ? 1 : 0;
  }
  return sums.reduce((ece, bin) => (bin.n ? ece + (bin.n / predictions.length) * Math.abs(bin.correct - bin.confidence) / bin.n : ece), 0);
}

/** Reliability per bin, for the diagram. */
export function reliabilityBins(predictions: readonly Prediction[], bins = ECE_BINS) {
  return Array.from({ length: bins }, (_, i) => {
    const inBin = predictions.filter((p) => Math.min(Math.floor(p.confidence * bins), bins - 1) === i);
    return {
      from: i / bins,
      to: (i + 1) / bins,
      n: inBin.length,
      confidence: inBin.length ? inBin.reduce((s, p) => s + p.confidence, 0) / inBin.length : null,
      accuracy: inBin.length ? accuracy(inBin) : null,
    };
  });
}

/**
 * Area under the ROC curve of confidence as a score for "this answer is right": the chance a right answer
 * has a higher confidence than a wrong one, ties counting half. Null when all are right or all wrong.
 */
export function auroc(predictions: readonly Prediction[]): number | null {
  const right = predictions.filter((p) => p.correct).map((p) => p.confidence);
  const wrong = predictions.filter((p) => !p.correct).map((p) => p.confidence);
  if (right.length === 0 || wrong.length === 0) return null;
  let wins = 0;
  for (const r of right) for (const w of wrong) wins += r > w ? 1 : r === w ? 0.5 : 0;
  return wins / (right.length * wrong.length);
}

export function meanLogLoss(predictions: readonly Prediction[]): number {
  if (predictions.length === 0) return Number.NaN;
  return predictions.reduce((sum, p) => sum - Math.log(Math.max(p.labelProbability, PROBABILITY_FLOOR)), 0) / predictions.length;
}

export interface ThresholdRow {
  threshold: number;
  /** Share of answers at or above the threshold (the ones the gateway would decide, not abstain on). */
  coverage: number;
  n: number;
  /** Accuracy among those; null when none clears the threshold. */
  accuracy: number | null;
}

export const THRESHOLDS = [0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

export function thresholdTable(predictions: readonly Prediction[], thresholds = THRESHOLDS): ThresholdRow[] {
  return thresholds.map((threshold) => {
    const kept = predictions.filter((p) => p.confidence >= threshold);
    return {
      threshold,
      coverage: predictions.length ? kept.length / predictions.length : 0,
      n: kept.length,
      accuracy: kept.length ? accuracy(kept) : null,
    };
  });
}

/** The lowest threshold whose decided answers reach the target accuracy (so coverage is as high as it can be). */
export function recommendThreshold(table: readonly ThresholdRow[], target: number): ThresholdRow | null {
  return table.find((row) => row.n > 0 && row.accuracy !== null && row.accuracy >= target) ?? null;
}

/**
 * The ECE a perfectly calibrated engine would still show on this many answers at these confidences, from
 * sampling chance alone: the floor below which a measured ECE means nothing.
 */
export function eceNoiseFloor(confidences: readonly number[], draws = 500, seed = 7): { mean: number; p95: number } {
  const random = seededRandom(seed);
  const samples: number[] = [];
  for (let d = 0; d < draws; d++) {
    const simulated = confidences.map((confidence) => ({ confidence, correct: random() < confidence, labelProbability: confidence }));
    samples.push(expectedCalibrationError(simulated));
  }
  samples.sort((a, b) => a - b);
  return { mean: samples.reduce((s, x) => s + x, 0) / draws, p95: samples[Math.floor(0.95 * (draws - 1))] };
}

/** A 95% percentile-bootstrap interval for a statistic of the predictions. */
export function bootstrapInterval(
  predictions: readonly Prediction[],
  statistic: (sample: Prediction[]) => number | null,
  resamples = 1000,
  seed = 11,
): [number, number] | null {
  if (predictions.length === 0) return null;
  const random = seededRandom(seed);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample = Array.from({ length: predictions.length }, () => predictions[Math.floor(random() * predictions.length)]);
    const value = statistic(sample);
    if (value !== null && Number.isFinite(value)) values.push(value);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return [values[Math.floor(0.025 * (values.length - 1))], values[Math.ceil(0.975 * (values.length - 1))]];
}

/**
 * ECE after calibration measured on answers the fit did not see: k folds, each scaled with a temperature
 * fitted on the others. A fit judged on its own data always looks better than it is.
 */
export function heldOutEce(answers: readonly LabelledAnswer[], folds = 5, seed = 13): number | null {
  const heldOut = heldOutPredictions(answers, folds, seed);
  return heldOut ? expectedCalibrationError(heldOut) : null;
}

/** Each answer scaled by a temperature fitted without it (k folds); null when there are too few answers. */
export function heldOutPredictions(answers: readonly LabelledAnswer[], folds = 5, seed = 13): Prediction[] | null {
  if (answers.length < folds * 2) return null;
  const random = seededRandom(seed);
  const order = answers.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const heldOut: Prediction[] = [];
  for (let fold = 0; fold < folds; fold++) {
    const test = order.filter((_, position) => position % folds === fold).map((i) => answers[i]);
    const train = order.filter((_, position) => position % folds !== fold).map((i) => answers[i]);
    const { temperature } = fitTemperature(train);
    heldOut.push(...test.map((answer) => predict(answer, temperature)));
  }
  return heldOut;
}
