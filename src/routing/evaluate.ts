import { isRecord } from '../common/is-record';
import { readLinesSync } from '../common/line-reader';
import { readFailureCode, readFailureReason, UnreadableFileError } from '../common/regular-file';
import {
  type EngineFeatureAnswer,
  featureFigures,
  featureGuarantees,
  type JudgedSpawn,
  type LabelledReading,
  readinessReasons,
  type ReadinessBars,
  ruleSafety,
  savings,
  TIER_RANK,
  weakPart,
} from './evaluate-report';
import { DEFAULT_RISK } from '../calibration/guaranteed-threshold';
import { ROUTING_LIMITS } from './routing-limits';
import { type Feature } from './routing-features';
import { routeTier, type Tier } from './routing-rule';

export interface EvaluateBars extends ReadinessBars {
  provider?: string;
}

/** The tier a model name or alias belongs to (`claude-sonnet-5` -> sonnet); null when it cannot tell. */
export function tierOf(model: unknown): Tier | null {
  if (typeof model !== 'string') return null;
  return (['haiku', 'sonnet', 'opus'] as const).find((tier) => model.toLowerCase().includes(tier)) ?? null;
}

export type LogEntry = Record<string, unknown>;

export interface RoutingLog {
  entries: LogEntry[];
  /** Why the log could not be read (a missing log is an empty one). */
  problem?: string;
}

/**
 * The log's entries, streamed (a log can be far larger than what it holds for this). Prompt text is dropped
 * but where `keepPrompt` says to keep it (only `--live` re-asks prompts, and only some).
 */
export function readRoutingLog(
  file: string,
  { keepPrompt }: { keepPrompt?: (entry: LogEntry) => boolean } = {},
): RoutingLog {
  const entries: LogEntry[] = [];
  try {
    for (const entry of routingLogEntries(file)) {
      if (!keepPrompt?.(entry)) delete entry.prompt;
      entries.push(entry);
    }
  } catch (error) {
    return { entries: [], problem: routingLogProblem(file, error) };
  }
  return { entries };
}

/**
 * Each entry of the log as it is read, holding none of them: lines that are not a JSON object (cut off at a
 * crash) or are over the readers' cap are skipped, and a missing log has none. Throws when the log cannot be
 * read ({@link routingLogProblem} says why).
 */
export function* routingLogEntries(file: string): Generator<LogEntry> {
  try {
    for (const line of readLinesSync(file, { maxLineBytes: ROUTING_LIMITS.logLineBytes })) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (isRecord(entry)) yield entry;
    }
  } catch (error) {
    if (readFailureCode(error) !== 'ENOENT') throw error;
  }
}

/** What a reader of the routing log says when it cannot read it: the file is named (a bare ENOTDIR names none). */
export function routingLogProblem(file: string, error: unknown): string {
  const reason = readFailureReason(error);
  return `cannot read the routing log: ${error instanceof UnreadableFileError ? reason : `${file} (${reason})`}`;
}

/** An outcome-labelled spawn with the routing entry of its prompt and the tier that ran. */
export interface SpawnOutcome {
  route: LogEntry;
  failed: boolean;
  ran: Tier;
}

/** Each failed or succeeded spawn joined to its prompt's entry among `routed`; those it cannot join are left out. */
export function spawnOutcomes(entries: readonly LogEntry[], routed: readonly LogEntry[]): SpawnOutcome[] {
  const byPrompt = new Map(routed.map((e) => [String(e.prompt_id), e]));
  const spawns = new Map(entries.filter((e) => e.source === 'spawn').map((e) => [String(e.tool_use_id), e]));
  return entries.flatMap((outcome) => {
    if (outcome.source !== 'outcome' || (outcome.outcome !== 'failed' && outcome.outcome !== 'succeeded')) return [];
    const spawn = spawns.get(String(outcome.tool_use_id));
    const route = spawn && byPrompt.get(String(spawn.prompt_id));
    const ran = tierOf(outcome.resolved_model) ?? tierOf(outcome.model) ?? tierOf(spawn?.model);
    return route && ran ? [{ route, failed: outcome.outcome === 'failed', ran }] : [];
  });
}

/** The rule's tier on the teacher's labels; null unless the features the rule reads are labelled. */
export function labelTier(labels: unknown): Tier | null {
  if (!isRecord(labels)) return null;
  const { read_only, design, review } = labels;
  if (typeof read_only !== 'boolean' || typeof design !== 'boolean' || typeof review !== 'boolean') return null;
  return routeTier({ read_only, design, review, specified: labels.specified === true });
}

/** A tier as logged, if it is one. */
function loggedTier(value: unknown): Tier | null {
  return typeof value === 'string' && Object.hasOwn(TIER_RANK, value) ? (value as Tier) : null;
}

/** What both modes report, from the labelled prompts with the engine's answers and the judged spawns. */
export function evaluationReport(
  scope: {
    mode: 'log' | 'live';
    log: string;
    provider: string | null;
    prompts_routed: number;
    prompts_labelled: number;
  },
  readings: readonly LabelledReading[],
  judged: readonly JudgedSpawn[],
  bars: ReadinessBars,
  problems: string[] = [],
) {
  const features = featureFigures(readings, bars.threshold);
  const failures = judged.filter((j) => j.failed).length;
  const safetyWithEngine = ruleSafety(judged, 'byEngine');
  const safetyWithLabels = ruleSafety(judged, 'byLabels');
  const reasons = [
    ...problems,
    ...readinessReasons(
      { features, failures, safety_with_engine: safetyWithEngine, safety_with_labels: safetyWithLabels },
      bars,
    ),
  ];
  return {
    ...scope,
    threshold: bars.threshold,
    features,
    /** Per feature, the threshold with a guarantee of the accuracy bar: the [routing] min_confidence to consider. */
    guaranteed_thresholds: featureGuarantees(readings, bars),
    spawns_judged: judged.length,
    failures,
    safety_with_engine: safetyWithEngine,
    safety_with_labels: safetyWithLabels,
    /** When the rule is unsafe with the engine's answers: is it the rule (unsafe with the labels too) or the engine? */
    weak_part: weakPart(safetyWithEngine, safetyWithLabels, bars.minSafety),
    savings: savings(judged),
    bars: {
      min_feature_accuracy: bars.minFeatureAccuracy,
      min_safety: bars.minSafety,
      min_failures: bars.minFailures,
      risk: bars.risk ?? DEFAULT_RISK,
    },
    verdict: reasons.length === 0 ? 'READY' : 'NOT READY',
    reasons,
  };
}

export type EvaluationReport = ReturnType<typeof evaluationReport>;

/**
 * Is an engine ready to route, from the routing log alone (read-only): the answers each prompt got at the
 * time from the provider that answered it (`bars.provider` keeps only that provider's), against the labels
 * in the log; the rule's safety on outcome-labelled spawns, with the tier it gave then and with the labels.
 * READY only when every bar is met. `--live` asks the engine instead (evaluate-live.ts).
 */
export function evaluateRouting(logFile: string, bars: EvaluateBars): EvaluationReport {
  const { entries, problem } = readRoutingLog(logFile);
  const routed = entries.filter((e) => e.source === 'routing' && (!bars.provider || e.provider === bars.provider));
  const labelled = routed.filter((e) => isRecord(e.labels) && isRecord(e.features));
  const readings = labelled.map((e) => ({
    labels: e.labels as Partial<Record<Feature, unknown>>,
    answers: e.features as Partial<Record<Feature, EngineFeatureAnswer>>,
  }));
  const judged = spawnOutcomes(entries, routed).map(({ route, failed, ran }) => ({
    failed,
    ran,
    byEngine: loggedTier(route.tier),
    byLabels: labelTier(route.labels),
  }));
  return evaluationReport(
    {
      mode: 'log',
      log: logFile,
      provider: bars.provider ?? null,
      prompts_routed: routed.length,
      prompts_labelled: labelled.length,
    },
    readings,
    judged,
    bars,
    problem ? [problem] : [],
  );
}
