import type { DecisionRequest } from '../decisions/decision.types';
import type { Answer, DecisionState, ModelRef } from '../decisions/question.types';

/** The library's error codes (dsh-system1's seven), derived from the pipeline's by one table. */
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

/** One call of the library API: named questions about one state. */
export interface DecideRequest extends Omit<DecisionRequest, 'state' | 'requestId'> {
  /** The state the questions are about (required here; the pipeline's own callers may leave it out). */
  state: DecisionState;
}

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
  /** True when the answers came from the decision cache (an identical request within `cache_ttl_s`): no engine was asked. */
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
