import { DecisionErrorCode, type DecisionError } from '../errors/decision-error';
import type { DecisionOutcome, QuestionOutcome } from './decision.types';
import type { Answer, ModelRef } from './question.types';

/**
 * The per-question view of an outcome (dsh-system1's): each question's answer or error under its id, and
 * the call's meta. The library's `decide` returns it; `system1_ask` and the OpenAI router read it too.
 */

/** The view's error codes (dsh-system1's seven), derived from the pipeline's by one table. */
export const QUESTION_ERROR_CODES = [
  'unavailable',
  'unsupported',
  'limit_exceeded',
  'timeout',
  'cancelled',
  'provider_error',
  'invalid_response',
] as const;
export type QuestionErrorCode = (typeof QUESTION_ERROR_CODES)[number];

export interface QuestionError {
  code: QuestionErrorCode;
  /** The engine's HTTP status, when it answered with an error status. */
  httpStatus?: number;
  /** Safe to show: never a secret, never the engine's raw reply. */
  message: string;
}

/** One question's outcome: one bad answer never discards the others. */
export type QuestionResult =
  | { status: 'ok'; answer: Answer; /** Below the threshold in force (the answer is kept). */ belowThreshold: boolean }
  | { status: 'error'; error: QuestionError };

export interface FailedAttempt extends ModelRef {
  /** The replica asked, when the provider is a pool of several endpoints. */
  endpoint?: string;
  error: QuestionError;
}

export interface DecideMeta {
  requestId: string;
  /** The first model of the chain (or the explicit one). */
  requested: ModelRef;
  /** Present only after an engine gave a readable reply. */
  executed?: ModelRef;
  /** Failed attempts in order, a cancelled one left out; absent when none failed. */
  attempts?: FailedAttempt[];
  /**
   * True when the answers came from the decision cache (an identical request within `cache_ttl_s`): no
   * engine was asked.
   */
  cached?: true;
  durationMs: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Engine-reported; absent = unknown. */
  approximate?: boolean;
  degraded?: boolean;
  /** Things worth knowing that did not fail the call, such as answers to questions nobody asked. */
  warnings?: string[];
}

export interface DecideResult {
  answers: Record<string, QuestionResult>;
  meta: DecideMeta;
}

/** The pipeline's words in the view's seven, one line each. */
const QUESTION_CODES: Readonly<Record<DecisionErrorCode, QuestionErrorCode>> = {
  [DecisionErrorCode.InvalidRequest]: 'provider_error', // each surface refuses a malformed call before the pipeline
  [DecisionErrorCode.ConfigError]: 'unavailable',
  [DecisionErrorCode.Paused]: 'unavailable',
  [DecisionErrorCode.Unavailable]: 'unavailable',
  [DecisionErrorCode.Unsupported]: 'unsupported',
  [DecisionErrorCode.LimitExceeded]: 'limit_exceeded',
  [DecisionErrorCode.Timeout]: 'timeout',
  [DecisionErrorCode.Cancelled]: 'cancelled',
  [DecisionErrorCode.ProviderError]: 'provider_error',
  [DecisionErrorCode.InvalidResponse]: 'invalid_response',
  [DecisionErrorCode.Abstained]: 'unsupported',
  [DecisionErrorCode.CoolingDown]: 'unavailable',
};

/** The pipeline's outcome in the per-question view. */
export function questionResults(outcome: DecisionOutcome): DecideResult {
  const answers = Object.fromEntries(
    Object.entries(outcome.answers).map(([id, answer]) => [id, questionResult(answer)]),
  );
  // A cancelled attempt is the caller's doing, not the engine's failure; a skipped one was never asked.
  const failed: FailedAttempt[] = outcome.attempts
    .filter((attempt) => attempt.outcome === 'failed' && attempt.error?.code !== DecisionErrorCode.Cancelled)
    .map(({ provider, model, endpoint, error }) => ({
      provider,
      ...(model !== undefined && { model }),
      ...(endpoint !== undefined && { endpoint }),
      error: questionError(error!),
    }));
  return {
    answers,
    meta: {
      requestId: outcome.requestId,
      requested: outcome.requested,
      ...(outcome.executed && { executed: outcome.executed }),
      ...(failed.length > 0 && { attempts: failed }),
      ...(outcome.attempts.some((attempt) => attempt.outcome === 'cached') && { cached: true as const }),
      durationMs: outcome.durationMs,
      ...(outcome.usage && { usage: outcome.usage }),
      ...(outcome.approximate !== undefined && { approximate: outcome.approximate }),
      ...(outcome.degraded !== undefined && { degraded: outcome.degraded }),
      ...(outcome.warnings && { warnings: outcome.warnings }),
    },
  };
}

function questionResult(outcome: QuestionOutcome): QuestionResult {
  if (outcome.status === 'error') return { status: 'error', error: questionError(outcome.error) };
  return { status: 'ok', answer: outcome.answer, belowThreshold: outcome.belowThreshold };
}

function questionError(error: DecisionError): QuestionError {
  const httpStatus = error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {};
  return { code: QUESTION_CODES[error.code], message: error.message, ...httpStatus };
}
