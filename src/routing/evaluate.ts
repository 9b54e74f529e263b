import { isRecord } from '../common/is-record';
import { readLinesSync } from '../common/line-reader';
import { readFailureCode, readFailureReason } from '../common/regular-file';
import { auroc } from '../calibration/metrics';
import { ROUTING_LIMITS } from './routing-limits';
import { Feature, FEATURES } from './routing-features';
import { routeTier, Tier } from './routing-rule';

export interface EvaluateBars {
  minFeatureAccuracy: number;
  minSafety: number;
  minFailures: number;
  threshold: number;
  provider?: string;
}

const RANK: Record<Tier, number> = { haiku: 0, sonnet: 1, opus: 2 };

/** The tier a model name or alias belongs to (`claude-sonnet-5` -> sonnet); null when it cannot tell. */
export function tierOf(model: unknown): Tier | null {
  if (typeof model !== 'string') return null;
  return (['haiku', 'sonnet', 'opus'] as const).find((tier) => model.toLowerCase().includes(tier)) ?? null;
}

type Entry = Record<string, unknown>;

/**
 * The log's entries, streamed (a log can be far larger than what it holds for this), without their prompt
 * text, which nothing here reads. A missing log has no entries; one that cannot be read says why.
 */
function readLog(file: string): { entries: Entry[]; problem?: string } {
  const entries: Entry[] = [];
  try {
    for (const line of readLinesSync(file, { maxLineBytes: ROUTING_LIMITS.logLineBytes })) {
      try {
        const entry = JSON.parse(line) as unknown;
        if (!isRecord(entry)) continue;
        delete entry.prompt;
        entries.push(entry);
      } catch {
        // a line cut off at a crash
      }
    }
  } catch (error) {
    if (readFailureCode(error) !== 'ENOENT') return { entries: [], problem: `cannot read the routing log: ${readFailureReason(error)}` };
  }
  return { entries };
}

/**
 * Is an engine ready to route? Read-only: per-feature accuracy and AUROC against the labels in the routing
 * log, the rule's safety on outcome-labelled spawns (the share of failures where the rule would have picked a
 * higher tier than the one that ran), with the engine's answers and with the labelled features, and the
 * spawns where it would have saved a tier. READY only when every bar is met.
 */
export function evaluateRouting(logFile: string, bars: EvaluateBars) {
  const { entries, problem } = readLog(logFile);
  const routed = entries.filter((e) => e.source === 'routing' && (!bars.provider || e.provider === bars.provider));
  const labelled = routed.filter((e) => isRecord(e.labels) && isRecord(e.features));

  const features = Object.fromEntries(
    (Object.keys(FEATURES) as Feature[]).map((feature) => {
      const predictions = labelled.flatMap((e) => {
        const answer = (e.features as Record<string, { answer: boolean; confidence: number }>)[feature];
        const label = (e.labels as Record<string, unknown>)[feature];
        return answer && typeof label === 'boolean' ? [{ confidence: answer.confidence, correct: answer.answer === label, labelProbability: answer.confidence }] : [];
      });
      const decided = predictions.filter((p) => p.confidence >= bars.threshold);
      return [
        feature,
        {
          n: predictions.length,
          coverage: predictions.length ? decided.length / predictions.length : 0,
          accuracy: decided.length ? decided.filter((p) => p.correct).length / decided.length : null,
          auroc: auroc(predictions),
        },
      ];
    }),
  ) as Record<Feature, { n: number; coverage: number; accuracy: number | null; auroc: number | null }>;

  const byPrompt = new Map(routed.map((e) => [String(e.prompt_id), e]));
  const spawns = new Map(entries.filter((e) => e.source === 'spawn').map((e) => [String(e.tool_use_id), e]));
  const outcomes = entries.filter((e) => e.source === 'outcome' && (e.outcome === 'failed' || e.outcome === 'succeeded'));
  const judged = outcomes.flatMap((outcome) => {
    const spawn = spawns.get(String(outcome.tool_use_id));
    const route = spawn && byPrompt.get(String(spawn.prompt_id));
    const ran = tierOf(outcome.resolved_model) ?? tierOf(outcome.model) ?? tierOf(spawn?.model);
    if (!route || !ran) return [];
    const byEngine = route.tier as Tier;
    const byLabels = isRecord(route.labels) ? routeTier(route.labels as Record<Feature, boolean>) : null;
    return [{ failed: outcome.outcome === 'failed', ran, byEngine, byLabels }];
  });
  const failures = judged.filter((j) => j.failed);
  const safety = (pick: (j: (typeof judged)[number]) => Tier | null) => {
    const counted = failures.filter((j) => pick(j) !== null);
    return counted.length ? counted.filter((j) => RANK[pick(j)!] > RANK[j.ran]).length / counted.length : null;
  };
  const successes = judged.filter((j) => !j.failed);
  const result = {
    log: logFile,
    provider: bars.provider ?? null,
    threshold: bars.threshold,
    prompts_routed: routed.length,
    prompts_labelled: labelled.length,
    features,
    spawns_judged: judged.length,
    failures: failures.length,
    safety_with_engine: safety((j) => j.byEngine),
    safety_with_labels: safety((j) => j.byLabels),
    savings: { successful_spawns: successes.length, cheaper_tier_suggested: successes.filter((j) => RANK[j.byEngine] < RANK[j.ran]).length },
    bars: { min_feature_accuracy: bars.minFeatureAccuracy, min_safety: bars.minSafety, min_failures: bars.minFailures },
    verdict: 'NOT READY' as 'READY' | 'NOT READY',
    reasons: problem ? [problem] : ([] as string[]),
  };
  for (const [feature, stats] of Object.entries(features)) {
    if (stats.accuracy === null || stats.accuracy < bars.minFeatureAccuracy) {
      result.reasons.push(`${feature}: accuracy ${stats.accuracy === null ? 'unknown' : stats.accuracy.toFixed(2)} at ${bars.threshold} is below ${bars.minFeatureAccuracy}`);
    }
  }
  if (result.safety_with_engine === null || result.safety_with_engine < bars.minSafety) {
    result.reasons.push(`the rule's safety with the engine's answers is ${result.safety_with_engine === null ? 'unknown' : result.safety_with_engine.toFixed(2)}, below ${bars.minSafety}`);
  }
  if (failures.length < bars.minFailures) result.reasons.push(`only ${failures.length} failed spawns are labelled (${bars.minFailures} needed)`);
  result.verdict = result.reasons.length === 0 ? 'READY' : 'NOT READY';
  return result;
}
