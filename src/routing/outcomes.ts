import type { Spawn } from './transcripts';

export type Outcome = 'failed' | 'succeeded' | 'unknown';

/** The four failure signals of the routing study, plus "no result" for runs cut off with their session. */
export type Signal = 'tool-error' | 'notification-failed' | 'reported-blocked' | 'redone' | 'completed' | 'no-result';

export interface LabelledSpawn {
  toolUseId: string;
  sessionId: string;
  timestamp: string;
  model: string | null;
  resolvedModel: string | null;
  outcome: Outcome;
  signal: Signal;
  /** A label a person should confirm: the failure may not be the model's (the user stopped it), or rests on words. */
  doubtful: boolean;
}

const USER_STOPPED = /User rejected tool use|doesn't want to proceed|interrupted by user|stopped by user/i;
const BLOCKED_REPORT = new RegExp(
  "\\b(i was unable to|i could not|i couldn't|i can't|i cannot|unable to complete|blocked by|" +
    "i'm blocked|i am blocked|could not finish|did not finish)\\b",
  'i',
);

/**
 * Proposes an outcome for every Agent spawn: failed when its tool result was an error, its task
 * notification said failed or stopped, its report says it was blocked, or a later spawn in the same
 * session redid the same task; succeeded when it completed otherwise; unknown without a result.
 */
export function labelSpawns(spawns: readonly Spawn[]): LabelledSpawn[] {
  const ordered = [...spawns].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  return ordered.map((spawn, index) => {
    const label = (outcome: Outcome, signal: Signal, doubtful = false): LabelledSpawn => ({
      toolUseId: spawn.toolUseId,
      sessionId: spawn.sessionId,
      timestamp: spawn.timestamp,
      model: spawn.model,
      resolvedModel: spawn.resolvedModel,
      outcome,
      signal,
      doubtful,
    });
    const { result, notification } = spawn;
    if (result?.isError) return label('failed', 'tool-error', USER_STOPPED.test(result.text));
    if (
      notification &&
      /failed|killed|stopped/i.test(`${notification.status} ${notification.summary}`) &&
      !/finished|completed/i.test(notification.status)
    ) {
      return label('failed', 'notification-failed', USER_STOPPED.test(notification.summary));
    }
    const redone = ordered
      .slice(index + 1)
      .some(
        (later) =>
          later.sessionId === spawn.sessionId &&
          later.description !== '' &&
          later.description.toLowerCase() === spawn.description.toLowerCase(),
      );
    if (redone) return label('failed', 'redone');
    const report = notification ? notification.summary : (result?.text ?? '');
    if (result && BLOCKED_REPORT.test(report)) return label('failed', 'reported-blocked', true);
    if (result?.status === 'completed' || notification || (result && result.status !== 'async_launched'))
      return label('succeeded', 'completed');
    return label('unknown', 'no-result');
  });
}

/** Totals only, never text: counts by outcome and by signal, and the doubtful ones to confirm. */
export function summariseOutcomes(labelled: readonly LabelledSpawn[]) {
  const count = <K extends string>(key: (l: LabelledSpawn) => K) =>
    labelled.reduce<Record<string, number>>((totals, l) => ((totals[key(l)] = (totals[key(l)] ?? 0) + 1), totals), {});
  return {
    spawns: labelled.length,
    by_outcome: count((l) => l.outcome),
    by_signal: count((l) => l.signal),
    by_model: count((l) => `${l.model ?? 'inherited'}:${l.outcome}`),
    doubtful: labelled
      .filter((l) => l.doubtful)
      .map(({ toolUseId, sessionId, timestamp, signal }) => ({
        tool_use_id: toolUseId,
        session_id: sessionId,
        timestamp,
        signal,
      })),
  };
}
