import { auroc, type Prediction } from '../calibration/calibration-metrics';
import { DEFAULT_RISK, thresholdGuarantee, type ThresholdGuarantee } from '../calibration/guaranteed-threshold';
import { type Feature, FEATURES } from './routing-features';
import { type Tier } from './routing-rule';

/**
 * The figures `system1 evaluate` reports, from the engine's answers (read from the log or asked live) and
 * the teacher's labels; pure, so each can be checked against figures worked out by hand.
 */

export interface EngineFeatureAnswer {
  answer: boolean;
  confidence: number;
}

/** One labelled prompt: the teacher's labels, and the engine's answers (null when it gave none). */
export interface LabelledReading {
  labels: Partial<Record<Feature, unknown>>;
  answers: Partial<Record<Feature, EngineFeatureAnswer>> | null;
}

export interface FeatureFigures {
  /** Prompts with both a label and an answer for this feature. */
  n: number;
  /** Share of them answered at or above the threshold (the ones the hook would act on). */
  coverage: number;
  /** Accuracy on those; null when none reached the threshold. */
  accuracy: number | null;
  /** How well confidence ranks right answers above wrong ones, over all n; null when all are right or all wrong. */
  auroc: number | null;
}

export function featureFigures(
  readings: readonly LabelledReading[],
  threshold: number,
): Record<Feature, FeatureFigures> {
  return perFeature((feature) => {
    const predictions = featurePredictions(readings, feature);
    const decided = predictions.filter((p) => p.confidence >= threshold);
    return {
      n: predictions.length,
      coverage: predictions.length ? decided.length / predictions.length : 0,
      accuracy: decided.length ? decided.filter((p) => p.correct).length / decided.length : null,
      auroc: auroc(predictions),
    };
  });
}

/**
 * Per feature, the threshold with a guarantee at the feature accuracy bar (guaranteed-threshold.ts), on the
 * confidences as the hook saw them: the routing log holds them after the fits then in place.
 */
export function featureGuarantees(
  readings: readonly LabelledReading[],
  bars: Pick<ReadinessBars, 'minFeatureAccuracy' | 'risk'>,
): Record<Feature, ThresholdGuarantee> {
  const options = { targetAccuracy: bars.minFeatureAccuracy, risk: bars.risk ?? DEFAULT_RISK };
  return perFeature((feature) => {
    const predictions = featurePredictions(readings, feature);
    return thresholdGuarantee(
      predictions.map((p) => p.confidence),
      predictions.map((p) => p.correct),
      options,
    );
  });
}

function perFeature<T>(figure: (feature: Feature) => T): Record<Feature, T> {
  return Object.fromEntries(
    (Object.keys(FEATURES) as Feature[]).map((feature) => [feature, figure(feature)]),
  ) as Record<Feature, T>;
}

/** The prompts with both a label and an answer for `feature`, as predictions. */
function featurePredictions(readings: readonly LabelledReading[], feature: Feature): Prediction[] {
  return readings.flatMap(({ labels, answers }) => {
    const label = labels[feature];
    const answer = answers?.[feature];
    // A log is hand-edited while labelling: an answer that is not one is no answer.
    if (typeof label !== 'boolean' || typeof answer?.answer !== 'boolean' || !Number.isFinite(answer.confidence))
      return [];
    const correct = answer.answer === label;
    return [
      { confidence: answer.confidence, correct, labelProbability: correct ? answer.confidence : 1 - answer.confidence },
    ];
  });
}

export const TIER_RANK: Record<Tier, number> = { haiku: 0, sonnet: 1, opus: 2 };

/** An outcome-labelled spawn: the tier that ran, and the rule's tier on the engine's answers and on the labels. */
export interface JudgedSpawn {
  failed: boolean;
  ran: Tier;
  /** null when the engine gave no answer for its prompt (the hook would have stayed silent). */
  byEngine: Tier | null;
  /** null when the prompt's features are not labelled. */
  byLabels: Tier | null;
}

/**
 * The rule's safety: of the failed spawns it has a tier for, the share where it would have picked a higher
 * tier than the one that ran and failed. Null when it has a tier for none.
 */
export function ruleSafety(judged: readonly JudgedSpawn[], by: 'byEngine' | 'byLabels'): number | null {
  const counted = judged.filter((j) => j.failed && j[by] !== null);
  return counted.length ? counted.filter((j) => TIER_RANK[j[by]!] > TIER_RANK[j.ran]).length / counted.length : null;
}

/** Successful spawns where the rule, on the engine's answers, would have picked a cheaper tier. */
export function savings(judged: readonly JudgedSpawn[]) {
  const successes = judged.filter((j) => !j.failed);
  return {
    successful_spawns: successes.length,
    cheaper_tier_suggested: successes.filter((j) => j.byEngine !== null && TIER_RANK[j.byEngine] < TIER_RANK[j.ran])
      .length,
  };
}

/**
 * Which part to fix when the rule is unsafe with the engine's answers (the spec's "tells a weak rule from a
 * weak engine"): unsafe even with the teacher's labels, it is the rule; safe with the labels, the engine.
 * Null when the rule is safe with the engine's answers, or when either figure is unknown.
 */
export function weakPart(
  safetyWithEngine: number | null,
  safetyWithLabels: number | null,
  minSafety: number,
): 'rule' | 'engine' | null {
  if (safetyWithEngine === null || safetyWithEngine >= minSafety || safetyWithLabels === null) return null;
  return safetyWithLabels < minSafety ? 'rule' : 'engine';
}

export interface ReadinessBars {
  minFeatureAccuracy: number;
  minSafety: number;
  minFailures: number;
  threshold: number;
  /** The chance each feature's threshold with a guarantee may miss the accuracy bar (DEFAULT_RISK when absent). */
  risk?: number;
}

export interface ReadinessFigures {
  features: Record<Feature, FeatureFigures>;
  failures: number;
  safety_with_engine: number | null;
  safety_with_labels: number | null;
}

const f2 = (value: number | null) => (value === null ? 'unknown' : value.toFixed(2));

/** Why the engine is not ready to route, one reason per bar it misses; READY when there is none. */
export function readinessReasons(figures: ReadinessFigures, bars: ReadinessBars): string[] {
  const reasons: string[] = [];
  for (const [feature, stats] of Object.entries(figures.features)) {
    if (stats.accuracy === null || stats.accuracy < bars.minFeatureAccuracy) {
      reasons.push(
        `${feature}: accuracy ${f2(stats.accuracy)} at ${bars.threshold} is below ${bars.minFeatureAccuracy}`,
      );
    }
  }
  const { safety_with_engine: withEngine, safety_with_labels: withLabels } = figures;
  if (withEngine === null || withEngine < bars.minSafety) {
    const part = weakPart(withEngine, withLabels, bars.minSafety);
    const why =
      part === 'rule'
        ? ` (${f2(withLabels)} even with the teacher's labels: the rule is the weak part, not the engine)`
        : part === 'engine'
          ? ` (${f2(withLabels)} with the teacher's labels: the engine is the weak part, not the rule)`
          : '';
    reasons.push(`the rule's safety with the engine's answers is ${f2(withEngine)}, below ${bars.minSafety}${why}`);
  }
  if (figures.failures < bars.minFailures)
    reasons.push(`only ${figures.failures} failed spawns are labelled (${bars.minFailures} needed)`);
  return reasons;
}
