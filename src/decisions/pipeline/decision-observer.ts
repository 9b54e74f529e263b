import { type CodeAbstention, ERROR_MEANINGS } from '../errors/error-meanings';
import type { DecisionOutcome, DecisionSurface, QuestionOutcome } from '../questions/decision.types';

/** One decision the pipeline finished, as its observers see it. */
export interface DecisionEvent {
  /** The surface that asked, `other` when it did not say. */
  surface: DecisionSurface | 'other';
  outcome: DecisionOutcome;
  /** The caller serve-http made it for (see caller-scope.ts); undefined on the other surfaces. */
  caller?: string;
}

/**
 * Told of every decision after it is made (the metrics, the health summary). It must be quick and must not
 * throw; a throw is caught and ignored, since counting must never cost a caller its answer.
 */
export type DecisionObserver = (event: DecisionEvent) => void;

/**
 * How one pipeline call ended, for counting: every question
 * answered above the threshold, some abstained, or some failed.
 */
export type ObservedStatus = 'answered' | 'abstained' | 'error';

/** Why a question was not answered with a decision, though nothing failed. */
export type AbstentionReason = 'below_threshold' | CodeAbstention;

/** A question's abstention, or undefined when it was answered above the threshold or failed. */
export function abstentionOf(answer: QuestionOutcome): AbstentionReason | undefined {
  if (answer.status === 'ok') return answer.belowThreshold ? 'below_threshold' : undefined;
  return ERROR_MEANINGS[answer.error.code].abstention;
}

/** A call fails when any of its questions failed; else it abstained when any question abstained. */
export function decisionStatus(outcome: DecisionOutcome): ObservedStatus {
  const answers = Object.values(outcome.answers);
  if (answers.some((answer) => answer.status === 'error' && abstentionOf(answer) === undefined)) return 'error';
  return answers.some((answer) => abstentionOf(answer) !== undefined) ? 'abstained' : 'answered';
}
