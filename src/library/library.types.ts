import type { DecisionRequest } from '../decisions/questions/decision.types';
import type { DecisionState } from '../decisions/questions/question.types';

/** The result of `decide` is the pipeline's per-question view, which system1_ask and the router read too. */
export { QUESTION_ERROR_CODES } from '../decisions/questions/question-results';
export type {
  DecideMeta,
  DecideResult,
  FailedAttempt,
  QuestionError,
  QuestionErrorCode,
  QuestionResult,
} from '../decisions/questions/question-results';

/** One call of the library API: named questions about one state. */
export interface DecideRequest extends Omit<DecisionRequest, 'state' | 'requestId'> {
  /** The state the questions are about (required here; the pipeline's own callers may leave it out). */
  state: DecisionState;
}
