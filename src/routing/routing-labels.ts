import { isRecord } from '../common/is-record';
import { rewriteLogLines } from '../logging/log-rewrite';
import { type LogEntry, routingLogEntries, routingLogProblem } from './evaluate';
import { TIER_RANK } from './evaluate-report';
import { type Feature, FEATURES } from './routing-features';
import { ROUTING_LIMITS } from './routing-limits';
import { logLine } from './routing-log';
import type { Tier } from './routing-rule';

/** The teacher's labels of one routed prompt, as the log's `labels` field holds them. */
export type RoutingLabels = Record<Feature, boolean> & { tier: Tier };

const FEATURE_NAMES = Object.keys(FEATURES) as Feature[];
const TIERS = Object.keys(TIER_RANK) as Tier[];
/** The question `calibrate` fits for the tier, as the shipped routing fit names it. */
export const TIER_QUESTION = 'Which Claude model tier does this task need?';

/**
 * The one rule for what waits for labels (`label list` lists it, `session-check` counts it): a prompt the
 * routing hook logged, with its id, and no `labels` object yet.
 */
export function isWaitingForLabels(entry: LogEntry): boolean {
  return entry.source === 'routing' && typeof entry.prompt_id === 'string' && !isRecord(entry.labels);
}

/**
 * How many entries wait for labels. Like the other readers here it holds no entry: a log can be far larger
 * than memory, and `label list` prints what waits a line at a time ({@link waitingEntries}).
 */
export function countWaiting(log: string): { waiting: number; problem?: string } {
  let waiting = 0;
  try {
    for (const entry of routingLogEntries(log)) if (isWaitingForLabels(entry)) waiting += 1;
  } catch (error) {
    return { waiting: 0, problem: routingLogProblem(log, error) };
  }
  return { waiting };
}

/**
 * The first `limit` entries waiting for labels, as read, with what Claude needs to propose them: the prompt
 * and the engine's reading. Throws when the log cannot be read (`routingLogProblem` says why).
 */
export function* waitingEntries(log: string, limit: number): Generator<WaitingEntry> {
  if (limit <= 0) return;
  let given = 0;
  for (const entry of routingLogEntries(log)) {
    if (!isWaitingForLabels(entry)) continue;
    yield waitingEntry(entry);
    if (++given >= limit) return;
  }
}

function waitingEntry(entry: LogEntry) {
  const features = isRecord(entry.features) ? entry.features : {};
  const engine = Object.fromEntries(
    FEATURE_NAMES.map((name) => [name, isRecord(features[name]) ? (features[name].answer ?? null) : null]),
  );
  return {
    id: entry.prompt_id as string,
    ts: entry.ts ?? null,
    prompt: entry.prompt ?? null,
    engine,
    tier: entry.tier ?? null,
  };
}

export type WaitingEntry = ReturnType<typeof waitingEntry>;

export interface LabelProblem {
  line: number;
  problem: string;
}

/**
 * Reads labels given as a JSON array or as JSONL, one `{"id", "read_only", "design", "review", "specified",
 * "tier"}` each, and checks every one against the log's ids: all problems come back, each with its line, and
 * labels only when there is none (a file with one bad line writes nothing).
 */
export function parseLabels(
  text: string,
  knownIds: ReadonlySet<string>,
): { labels: Map<string, RoutingLabels>; problems: LabelProblem[] } {
  const items = text.trimStart().startsWith('[') ? arrayItems(text) : jsonlItems(text);
  const problems: LabelProblem[] = [];
  const labels = new Map<string, RoutingLabels>();
  for (const item of items) {
    if ('problem' in item) {
      problems.push(item);
      continue;
    }
    const problem = labelProblem(item.value, knownIds, labels);
    if (problem) problems.push({ line: item.line, problem });
    else {
      const { id, ...fields } = item.value as Record<string, unknown>;
      labels.set(id as string, fields as RoutingLabels);
    }
  }
  return problems.length ? { labels: new Map(), problems } : { labels, problems };
}

function labelProblem(
  value: unknown,
  knownIds: ReadonlySet<string>,
  seen: ReadonlyMap<string, unknown>,
): string | undefined {
  if (!isRecord(value)) return 'not a JSON object';
  const { id } = value;
  if (typeof id !== 'string') return '"id" must be the string id `label list` gave';
  if (!knownIds.has(id)) return `unknown id ${JSON.stringify(id)}: no routed prompt in the log has it`;
  if (seen.has(id)) return `id ${JSON.stringify(id)} is labelled twice`;
  const unknown = Object.keys(value).filter(
    (key) => key !== 'id' && key !== 'tier' && !FEATURE_NAMES.includes(key as Feature),
  );
  if (unknown.length)
    return `unknown field ${JSON.stringify(unknown[0])}: expected id, ${FEATURE_NAMES.join(', ')} and tier`;
  const notBoolean = FEATURE_NAMES.find((name) => typeof value[name] !== 'boolean');
  if (notBoolean) return `"${notBoolean}" must be true or false`;
  if (typeof value.tier !== 'string' || !TIERS.includes(value.tier as Tier))
    return `"tier" must be one of ${TIERS.join(', ')}`;
  return undefined;
}

type Item = { line: number; value: unknown } | LabelProblem;

function jsonlItems(text: string): Item[] {
  return text.split('\n').flatMap((raw, i): Item[] => {
    if (raw.trim() === '') return [];
    try {
      return [{ line: i + 1, value: JSON.parse(raw) as unknown }];
    } catch {
      return [{ line: i + 1, problem: 'not valid JSON' }];
    }
  });
}

/** A JSON array's elements, each with the line it starts on (so a bad one is named like a JSONL line). */
function arrayItems(text: string): Item[] {
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message));
    return [{ line: position ? lineAt(text, Number(position[1])) : 1, problem: 'not valid JSON' }];
  }
  if (!Array.isArray(values)) return [{ line: 1, problem: 'expected a JSON array of labels, or JSONL' }];
  const starts = elementStarts(text);
  return (values as unknown[]).map((value, i) => ({ line: lineAt(text, starts[i] ?? 0), value }));
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** The offset where each element of a top-level JSON array starts, strings and nesting skipped. */
function elementStarts(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    if (expecting && c !== ']') {
      starts.push(i);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') expecting = ++depth === 1;
    else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 1) expecting = true;
  }
  return starts;
}

/** The ids of every routed prompt in the log, labelled or not (a label may be corrected). */
export function routedIds(log: string): { ids: Set<string>; problem?: string } {
  const ids = new Set<string>();
  try {
    for (const entry of routingLogEntries(log))
      if (entry.source === 'routing' && typeof entry.prompt_id === 'string') ids.add(entry.prompt_id);
  } catch (error) {
    return { ids: new Set(), problem: routingLogProblem(log, error) };
  }
  return { ids };
}

/** Lines a rewrite offers for labels: those the readers read (longer ones are damage, and name no id). */
const REWRITE_LIMITS = { maxLineBytes: ROUTING_LIMITS.logLineBytes };

/**
 * Writes `labels` into the routed entries with those ids, atomically; lines the hook appends meanwhile land
 * after, none lost (log-rewrite.ts). Returns how many entries were labelled.
 */
export function applyLabels(log: string, labels: ReadonlyMap<string, RoutingLabels>): number {
  return rewriteLogLines(
    log,
    (line) => {
      if (!line.includes('"routing"')) return undefined;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        return undefined;
      }
      if (!isRecord(entry) || entry.source !== 'routing' || typeof entry.prompt_id !== 'string') return undefined;
      const label = labels.get(entry.prompt_id);
      return label ? logLine({ ...entry, labels: label }).slice(0, -1) : undefined;
    },
    REWRITE_LIMITS,
  );
}

/** One calibration row per labelled feature and one for the tier, as `calibrate` reads them. */
export interface CalibrationExampleRow {
  question: string;
  options: string[];
  context: { prompt: string };
  label: string;
}

/**
 * The labelled routed prompts as calibration rows, each handed to `write` as it is made (five a prompt, each
 * with the prompt's text: a log's worth is more than a string can hold): for each, its four features as the
 * yes/no questions the hook asks (so their fits apply to the hook's answers) and the tier question. Entries
 * without their prompt text cannot be asked again and are left out.
 */
export function exportLabelled(
  log: string,
  write: (row: CalibrationExampleRow) => void,
): { rows: number; prompts: number; problem?: string } {
  let rows = 0;
  let prompts = 0;
  let writing = false;
  try {
    for (const entry of routingLogEntries(log)) {
      const made = calibrationRows(entry);
      writing = true;
      for (const row of made) write(row);
      writing = false;
      rows += made.length;
      if (made.length > 0) prompts += 1;
    }
  } catch (error) {
    if (writing) throw error; // the caller's to name: the log was read
    return { rows, prompts, problem: routingLogProblem(log, error) };
  }
  return { rows, prompts };
}

function calibrationRows(entry: LogEntry): CalibrationExampleRow[] {
  if (entry.source !== 'routing' || !isRecord(entry.labels) || typeof entry.prompt !== 'string') return [];
  const labels = entry.labels;
  const context = { prompt: entry.prompt };
  const rows: CalibrationExampleRow[] = [];
  for (const name of FEATURE_NAMES) {
    if (typeof labels[name] === 'boolean')
      rows.push({ question: FEATURES[name], options: ['yes', 'no'], context, label: labels[name] ? 'yes' : 'no' });
  }
  if (typeof labels.tier === 'string' && TIERS.includes(labels.tier as Tier))
    rows.push({ question: TIER_QUESTION, options: [...TIERS], context, label: labels.tier });
  return rows;
}
