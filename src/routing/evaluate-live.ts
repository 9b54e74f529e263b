import { isRecord } from '../common/is-record';
import type { JudgedSpawn, ReadinessBars } from './evaluate-report';
import { evaluationReport, labelTier, type LogEntry, readRoutingLog, spawnOutcomes } from './evaluate';
import type { FeatureAnswer, FeatureReading } from './feature-reader.service';
import type { Feature } from './routing-features';
import { routeTier } from './routing-rule';

/** Prompts in flight at once: an engine answers a few side by side without queueing much (as calibrate). */
export const LIVE_CONCURRENCY = 4;
/** Failed prompts in a row after which the engine is taken to be down and the run stops. */
export const STOP_AFTER_FAILURES = 5;
/** Share of prompts the engine may fail on before its figures, which leave those out, stop standing for it. */
export const MAX_FAILED_SHARE = 0.05;

/** The hook's feature reader (FeatureReader), or anything that reads the features the same way. */
export interface FeatureAsker {
  read(prompt: string, budgetMs: number, requestId: string): Promise<FeatureReading>;
}

export interface EngineUnderTest {
  provider: string;
  model: string | null;
  reader: FeatureAsker;
  /** Each prompt's budget. */
  budgetMs: number;
}

export interface LiveOptions {
  concurrency?: number;
  /** Called once with the number of prompts to ask, before the first is asked. */
  onStart?: (total: number) => void;
  onProgress?: (done: number, total: number) => void;
}

type Answers = Record<Feature, FeatureAnswer>;

/** What asking the engine came to, for the report's `engine` part. */
export interface AskCounts {
  /** Prompts to ask: labelled, or the prompt of an outcome-labelled spawn, with their text in the log. */
  prompts: number;
  asked: number;
  answered: number;
  failed: number;
  /** Failed prompts by the pipeline's error code. */
  errors: Record<string, number>;
  not_asked: number;
  /** Prompts that would be asked, but whose entry has no prompt text to ask. */
  without_prompt_text: number;
  stopped_because: string | null;
  /** The last failure's words (the pipeline's code and message), null when none failed. */
  last_error: string | null;
}

/**
 * `system1 evaluate --live`: asks the engine under test, through the hook's own feature reader, the four
 * features of every prompt in the routing log that carries the teacher's labels or led to an
 * outcome-labelled spawn, whichever engine routed it at the time; then scores its answers as the log mode
 * scores the logged ones, with the rule's tier on them for safety. Engine failures are counted, not thrown.
 */
export async function evaluateLive(
  logFile: string,
  bars: ReadinessBars,
  engine: EngineUnderTest,
  options: LiveOptions = {},
) {
  const { entries, problem } = readRoutingLog(logFile, { keepPrompt: promptsWorthAsking(logFile) });
  const routed = entries.filter((e) => e.source === 'routing');
  const outcomes = spawnOutcomes(entries, routed);
  const judgedRoutes = new Set(outcomes.map((o) => o.route));
  const wanted = routed.filter((e) => isRecord(e.labels) || judgedRoutes.has(e));
  const askable = wanted.filter((e) => typeof e.prompt === 'string' && e.prompt.trim() !== '');
  const { answers, counts } = await askAll(askable, engine, options);
  counts.without_prompt_text = wanted.length - askable.length;

  const labelled = routed.filter((e) => isRecord(e.labels));
  const readings = labelled.map((e) => ({
    labels: e.labels as Record<string, unknown>,
    answers: answers.get(e) ?? null,
  }));
  const judged: JudgedSpawn[] = outcomes.map(({ route, failed, ran }) => {
    const read = answers.get(route);
    const byEngine = read
      ? routeTier({
          read_only: read.read_only.answer,
          design: read.design.answer,
          review: read.review.answer,
          specified: read.specified.answer,
        })
      : null;
    return { failed, ran, byEngine, byLabels: labelTier(route.labels) };
  });
  const report = evaluationReport(
    {
      mode: 'live',
      log: logFile,
      provider: engine.provider,
      prompts_routed: routed.length,
      prompts_labelled: labelled.length,
    },
    readings,
    judged,
    bars,
    [...(problem ? [problem] : []), ...askProblems(engine.provider, counts)],
  );
  return { ...report, engine: { model: engine.model, ...counts } };
}

/**
 * Which routing entries' prompt text to keep: the labelled ones and those of outcome-labelled spawns. Found
 * in a first pass without any text, so memory holds only the prompts that will be asked, whatever the log.
 */
function promptsWorthAsking(logFile: string): (entry: LogEntry) => boolean {
  const { entries } = readRoutingLog(logFile);
  const routed = entries.filter((e) => e.source === 'routing');
  const judged = new Set(spawnOutcomes(entries, routed).map((o) => String(o.route.prompt_id)));
  return (entry) => entry.source === 'routing' && (isRecord(entry.labels) || judged.has(String(entry.prompt_id)));
}

export type LiveReport = Awaited<ReturnType<typeof evaluateLive>>;

/** Reasons the asking itself keeps the engine from READY: a run cut short, or too many prompts failed. */
function askProblems(provider: string, counts: AskCounts): string[] {
  const problems: string[] = [];
  if (counts.stopped_because)
    problems.push(`the run stopped after ${counts.asked} of ${counts.prompts} prompts: ${counts.stopped_because}`);
  if (counts.prompts > 0 && counts.failed / counts.prompts > MAX_FAILED_SHARE) {
    const byCode = Object.entries(counts.errors)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ');
    problems.push(
      `${provider} failed on ${counts.failed} of ${counts.prompts} prompts (${byCode}), ` +
        `more than ${MAX_FAILED_SHARE * 100}%: the figures leave them out`,
    );
  }
  return problems;
}

/** Every prompt asked, `concurrency` at a time, until done or the engine looks down. */
async function askAll(prompts: readonly LogEntry[], engine: EngineUnderTest, options: LiveOptions) {
  const answers = new Map<LogEntry, Answers>();
  const counts: AskCounts = {
    prompts: prompts.length,
    asked: 0,
    answered: 0,
    failed: 0,
    errors: {},
    not_asked: 0,
    without_prompt_text: 0,
    stopped_because: null,
    last_error: null,
  };
  let failuresInARow = 0;
  let next = 0;
  options.onStart?.(prompts.length);

  const worker = async () => {
    while (next < prompts.length && counts.stopped_because === null) {
      const index = next++;
      const entry = prompts[index];
      const requestId = `evaluate-${typeof entry.prompt_id === 'string' ? entry.prompt_id : index}`;
      const reading = await engine.reader.read(entry.prompt as string, engine.budgetMs, requestId);
      counts.asked += 1;
      options.onProgress?.(counts.asked, prompts.length);
      if (reading.kind === 'answered') {
        failuresInARow = 0;
        counts.answered += 1;
        answers.set(entry, reading.features);
        continue;
      }
      counts.failed += 1;
      const code = failureCode(reading.detail);
      counts.errors[code] = (counts.errors[code] ?? 0) + 1;
      counts.last_error = reading.detail;
      failuresInARow += 1;
      if (failuresInARow >= STOP_AFTER_FAILURES && counts.stopped_because === null) {
        counts.stopped_because = `${STOP_AFTER_FAILURES} failures in a row, the last: ${reading.detail}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? LIVE_CONCURRENCY) }, worker));
  counts.not_asked = prompts.length - counts.asked;
  return { answers, counts };
}

/**
 * The pipeline's error code in a failed reading's detail (`<provider>: <code> (<message>)`, one attempt
 * since the chain holds the engine under test alone); 'failed' when the detail has none.
 */
export function failureCode(detail: string): string {
  return /^[^:]+: ([a-z_]+) \(/.exec(detail)?.[1] ?? 'failed';
}
