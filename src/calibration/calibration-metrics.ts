import { fitTemperature, type LabelledAnswer } from './fit';
import { seededRandom } from './random';
import { PROBABILITY_FLOOR, scaleProbabilities } from './temperature';

/** What the metrics need from one answer: the confidence of the chosen option and whether it was right. */
export interface Prediction {
  confidence: number;
  correct: boolean;
  /** The probability the engine gave the right option (for log loss). */
  labelProbability: number;
}

/** A prediction that also keeps its Brier term, which needs every option's probability. */
export interface ScoredPrediction extends Prediction {
  /** sum over the options of (p_k - [k is the right option])^2. */
  squaredError: number;
}

/** The decision is the most probable option (the first on a tie); its probability is the confidence. */
export function predict(answer: LabelledAnswer, temperature = 1): Prediction {
  const { confidence, correct, labelProbability } = scorePrediction(answer, temperature);
  return { confidence, correct, labelProbability };
}

/** predict's prediction with its Brier term. */
export function scorePrediction({ probabilities, label }: LabelledAnswer, temperature = 1): ScoredPrediction {
  const scaled = temperature === 1 ? [...probabilities] : scaleProbabilities(probabilities, temperature);
  let best = 0;
  for (let i = 1; i < scaled.length; i++) if (scaled[i] > scaled[best]) best = i;
  const squaredError = scaled.reduce((sum, p, k) => sum + (p - (k === label ? 1 : 0)) ** 2, 0);
  return { confidence: scaled[best], correct: best === label, labelProbability: scaled[label], squaredError };
}

export const ECE_BINS = 10;
export const BINNING = `${ECE_BINS} equal-width confidence bins over [0, 1], each weighted by its share of answers`;

// Bound once: a global lookup per call is slow inside a vm
// context (Jest's), and a bootstrap runs these millions of times.
const { abs, floor, min } = Math;

/** The bin of a confidence: equal-width over [0, 1], with 1.0 in the top bin. */
function binOf(confidence: number, bins: number): number {
  return min(floor(confidence * bins), bins - 1);
}

export function accuracy(predictions: readonly Prediction[]): number {
  let right = 0;
  for (const p of predictions) if (p.correct) right += 1;
  return predictions.length ? right / predictions.length : Number.NaN;
}

/** Expected calibration error: the answer-weighted gap between accuracy and mean confidence per bin. */
export function expectedCalibrationError(predictions: readonly Prediction[], bins = ECE_BINS): number {
  if (predictions.length === 0) return Number.NaN;
  // Per bin, n_bin/n * |acc_bin - conf_bin| is |right_bin - sum of confidences_bin| / n.
  const gap: number[] = [];
  for (let bin = 0; bin < bins; bin++) gap.push(0);
  for (const { confidence, correct } of predictions) gap[binOf(confidence, bins)] += (correct ? 1 : 0) - confidence;
  let ece = 0;
  for (const binGap of gap) ece += abs(binGap);
  return ece / predictions.length;
}

/** Reliability per bin, for the diagram. */
export function reliabilityBins(predictions: readonly Prediction[], bins = ECE_BINS) {
  return Array.from({ length: bins }, (_, i) => {
    const inBin = predictions.filter((p) => binOf(p.confidence, bins) === i);
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
  const right = predictions.filter((p) => p.correct).length;
  const wrong = predictions.length - right;
  if (right === 0 || wrong === 0) return null;
  // Mann-Whitney U from midranks: sorting once keeps a bootstrap over thousands of answers quick.
  const sorted = [...predictions].sort((a, b) => a.confidence - b.confidence);
  let rankSumOfRight = 0;
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end < sorted.length && sorted[end].confidence === sorted[start].confidence) end++;
    const midrank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) if (sorted[i].correct) rankSumOfRight += midrank;
    start = end;
  }
  return (rankSumOfRight - (right * (right + 1)) / 2) / (right * wrong);
}

export function meanLogLoss(predictions: readonly Prediction[]): number {
  if (predictions.length === 0) return Number.NaN;
  return (
    predictions.reduce((sum, p) => sum - Math.log(Math.max(p.labelProbability, PROBABILITY_FLOOR)), 0) /
    predictions.length
  );
}

/** Brier score: the mean over answers of the squared error summed over every option. */
export function brierScore(predictions: readonly ScoredPrediction[]): number {
  if (predictions.length === 0) return Number.NaN;
  return predictions.reduce((sum, p) => sum + p.squaredError, 0) / predictions.length;
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
    const simulated = confidences.map((confidence) => ({
      confidence,
      correct: random() < confidence,
      labelProbability: confidence,
    }));
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
  // One buffer refilled per resample: the statistics read it and keep nothing.
  const sample = new Array<Prediction>(predictions.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < sample.length; i++) sample[i] = predictions[floor(random() * predictions.length)];
    const value = statistic(sample);
    if (value !== null && Number.isFinite(value)) values.push(value);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return [values[Math.floor(0.025 * (values.length - 1))], values[Math.ceil(0.975 * (values.length - 1))]];
}

/**
 * ECE after calibration measured on answers the fit did not see: k stratified folds, each scaled with a
 * temperature fitted on the others. A fit judged on its own data always looks better than it is.
 */
export function heldOutEce(answers: readonly LabelledAnswer[], folds = 5, seed = 13): number | null {
  const heldOut = heldOutPredictions(answers, folds, seed);
  return heldOut ? expectedCalibrationError(heldOut) : null;
}

/**
 * Each answer scaled by a temperature fitted without it (k folds that keep the label shares), in the
 * answers' order; null when there are too few answers.
 */
export function heldOutPredictions(
  answers: readonly LabelledAnswer[],
  folds = 5,
  seed = 13,
): ScoredPrediction[] | null {
  return crossValidated(
    answers,
    (answer) => answer.label,
    (train, test) => {
      const { temperature } = fitTemperature(train);
      return test.map((answer) => scorePrediction(answer, temperature));
    },
    folds,
    seed,
  );
}

/**
 * The fold of each item, allocated as scikit-learn's StratifiedKFold(shuffle=True) does: strata numbered in
 * order of first appearance, the sorted stratum numbers dealt to the folds in turn (so each fold holds its
 * share of every stratum, give or take one), then each stratum's fold numbers shuffled (seeded) over its
 * items in order. An unstratified split of a small sample moves the label shares of a fold's training and
 * test parts in opposite directions, and a fit judged so is judged on the split, not on itself.
 */
export function stratifiedFolds<T>(
  items: readonly T[],
  stratum: (item: T) => string | number,
  folds = 5,
  seed = 13,
): number[] {
  const random = seededRandom(seed);
  const numbers = new Map<string | number, number>();
  const members: number[][] = [];
  items.forEach((item, i) => {
    const key = stratum(item);
    if (!numbers.has(key)) {
      numbers.set(key, members.length);
      members.push([]);
    }
    members[numbers.get(key)!].push(i);
  });
  // allocation[s][fold]: how many of stratum s the fold gets, from dealing the sorted stratum numbers.
  const allocation = members.map(() => new Array<number>(folds).fill(0));
  let position = 0;
  members.forEach((inStratum, s) => inStratum.forEach(() => (allocation[s][position++ % folds] += 1)));
  const foldOf = new Array<number>(items.length);
  allocation.forEach((perFold, s) => {
    const foldNumbers = perFold.flatMap((count, fold) => new Array<number>(count).fill(fold));
    for (let i = foldNumbers.length - 1; i > 0; i--) {
      const j = floor(random() * (i + 1));
      [foldNumbers[i], foldNumbers[j]] = [foldNumbers[j], foldNumbers[i]];
    }
    members[s].forEach((item, k) => (foldOf[item] = foldNumbers[k]));
  });
  return foldOf;
}

/** The fewest items a cross-validation takes: two per fold. */
export function minimumForFolds(folds = 5): number {
  return folds * 2;
}

/**
 * Stratified k-fold cross-validation: each fold predicted by `predictFold` from the other folds alone, the
 * predictions returned in the items' order (so each pairs with the same answer unscaled). Null when there
 * are fewer than two items per fold.
 */
export function crossValidated<T>(
  items: readonly T[],
  stratum: (item: T) => string | number,
  predictFold: (train: T[], test: T[]) => ScoredPrediction[],
  folds = 5,
  seed = 13,
): ScoredPrediction[] | null {
  if (items.length < minimumForFolds(folds)) return null;
  const foldOf = stratifiedFolds(items, stratum, folds, seed);
  const heldOut = new Array<ScoredPrediction>(items.length);
  for (let fold = 0; fold < folds; fold++) {
    const testIndices = items.map((_, i) => i).filter((i) => foldOf[i] === fold);
    const train = items.filter((_, i) => foldOf[i] !== fold);
    const predicted = predictFold(
      train,
      testIndices.map((i) => items[i]),
    );
    testIndices.forEach((index, k) => (heldOut[index] = predicted[k]));
  }
  return heldOut;
}
