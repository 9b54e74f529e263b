import type { Answer, DecisionState, ImageAttachment, ModelRef, Question } from '../decisions/question.types';

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
export interface DecideRequest {
  state: DecisionState;
  /** Keyed by question id: the keys of `answers`. */
  questions: Record<string, Question>;
  /** At most four, shared by every question; a `box` question needs at least one. */
  images?: ImageAttachment[];
  /** Asks for the engine's extended context window, where it has one. */
  longContext?: boolean;
  /** Runs this engine alone, without the fallback chain. */
  model?: ModelRef;
  /** The caller's cancellation: ends the chain, reported as `cancelled`. */
  signal?: AbortSignal;
  /** Each attempt's budget. */
  timeoutMs?: number;
  /** Overrides the configured threshold for this call; answers below it are marked, not dropped. */
  minConfidence?: number;
}

export interface FailedAttempt extends ModelRef {
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
