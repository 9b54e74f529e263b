/**
 * The engine's self-timing (engines/reranker/lib/self-timing.js) as the gateway reads it, from `time.js
 * --json` after a pull or from the started engine's /health: checked field by field, since it comes from
 * another process, and put in words for `engine pull` and `engine start`.
 */

/** One way to decide faster, with what it costs (the engine's table, lib/speed-advice.js, holds the figures). */
export interface SpeedAdvice {
  what: string;
  how: string;
  cost: string;
}

export interface EngineTiming {
  per_candidate_ms: number;
  /** Predicted milliseconds for a decision of 5, 20 and 90 candidates. */
  predicted_ms: { 5: number; 20: number; 90: number };
  runs: number;
  /** How the predictions were made, in the engine's words. */
  how: string;
  measured_at: string;
  system1_speed_ms: number;
  slow: boolean;
  advice: SpeedAdvice[];
}

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= 2000;

function isAdvice(value: unknown): value is SpeedAdvice {
  const way = value as Partial<SpeedAdvice> | null;
  return typeof way === 'object' && way !== null && isText(way.what) && isText(way.how) && isText(way.cost);
}

/** The timing in `value`, or undefined when it is absent or not the shape the engine writes. */
export function readEngineTiming(value: unknown): EngineTiming | undefined {
  const timing = value as Partial<EngineTiming> | null | undefined;
  if (typeof timing !== 'object' || timing === null) return undefined;
  const predicted = timing.predicted_ms;
  const wellFormed =
    typeof predicted === 'object' &&
    predicted !== null &&
    [predicted[5], predicted[20], predicted[90]].every(positive) &&
    positive(timing.per_candidate_ms) &&
    positive(timing.runs) &&
    positive(timing.system1_speed_ms) &&
    isText(timing.how) &&
    isText(timing.measured_at) &&
    typeof timing.slow === 'boolean' &&
    Array.isArray(timing.advice) &&
    timing.advice.length <= 10 &&
    timing.advice.every(isAdvice);
  return wellFormed ? (timing as EngineTiming) : undefined;
}

/** Milliseconds as a user reads them: `435 ms`, `1,730 ms`, `7.76 s`. */
export function duration(ms: number): string {
  return ms >= 10_000
    ? `${Number((ms / 1000).toPrecision(3)).toLocaleString('en-US')} s`
    : `${Number(ms.toPrecision(3)).toLocaleString('en-US')} ms`;
}

/** What a decision takes with this model on this machine and, when far from System-1 speed, what to do. */
export function describeTiming(timing: EngineTiming): string[] {
  const { 5: five, 20: twenty, 90: ninety } = timing.predicted_ms;
  const lines = [
    `On this machine a decision of 5 candidates takes ~${duration(five)}, 20 ~${duration(twenty)}, ` +
      `90 ~${duration(ninety)} (the engine timed itself on this model: ${timing.how}).`,
  ];
  if (!timing.slow) return lines;
  return [
    ...lines,
    `That is over ${timing.system1_speed_ms} ms for 20 candidates, far from System-1 speed. ` +
      'Faster ways, with what each costs:',
    ...timing.advice.map((way) => `  - ${way.what}: ${way.how}. ${way.cost}.`),
  ];
}
