import type { DecisionError } from '../errors/decision-error';
import type { Answer, DecisionState, ImageAttachment, ModelRef, Question } from './question.types';

/** One call of the pipeline: named typed questions about one state, already checked by its surface. */
export interface DecisionRequest {
  /** Absent when the caller gave no context. */
  state?: DecisionState;
  /** Keyed by question id: the keys of the outcome's `answers`. */
  questions: Record<string, Question>;
  images?: ImageAttachment[];
  longContext?: boolean;
  /** Runs this engine alone, without the fallback chain. */
  model?: ModelRef;
  /** The caller's cancellation: ends the chain, reported as `cancelled`. */
  signal?: AbortSignal;
  /** Each attempt's budget. */
  timeoutMs?: number;
  /** Overrides the surface's threshold for this call; answers below it are marked, not dropped. */
  minConfidence?: number;
  /** The caller's id for the logs; one is made up when absent. */
  requestId?: string;
}

/** The surfaces of the one pipeline, as the metrics name them. */
export type DecisionSurface =
  | 'system1_decide'
  | 'system1_ask'
  | 'library'
  | 'openai_router'
  | 'decisions_api'
  | 'systemone_api'
  | 'route_hook'
  | 'skill_picker'
  | 'calibrate';

/** How a surface wants the one pipeline to behave where the specs it follows differ on purpose. */
export interface DecisionPolicy {
  /** The engines tried when a call names no model; default `[gateway] provider` then `fallback`. */
  chain?: ModelRef[];
  /** Each attempt's budget when the call gives none; default `[gateway] timeout_s`. */
  timeoutMs?: number;
  /** The whole call's budget over every attempt (the routing hook's); none by default. */
  budgetMs?: number;
  /** The threshold when the call gives none; default `[gateway] min_confidence`. */
  minConfidence?: number;
  /**
   * True (the S1 tools): an unreadable answer is the engine's failure and the next engine is asked.
   * False (dsh-system1's library): it stays that question's error and the other answers stand.
   */
  retryBadAnswers?: boolean;
  /** False for the engine's raw probabilities (`calibrate` measures them); default true. */
  calibrate?: boolean;
  /**
   * True (the decisions endpoints): a call with more questions, or candidates over all its questions, than an
   * engine takes in one request is asked in as many requests as its limits need, the answers joined in order.
   * Default false: such a call is refused before sending (`limit_exceeded`) and the chain moves on.
   */
  inPasses?: boolean;
  /** Who asks, for the metrics; `other` when absent. */
  surface?: DecisionSurface;
  /**
   * False: no engine is skipped for its recent failures, and none
   * are recorded (the library may turn it off); default true.
   */
  cooldown?: boolean;
  /**
   * When every engine is cooling down, wait for the first to recover within the call's deadline (its budget,
   * else one attempt's timeout) instead of failing at once; default `[gateway] wait_for_recovery`.
   */
  waitForRecovery?: boolean;
  /**
   * A pool's request not answered after this many ms also goes to a second replica; "auto" is the pool's recent
   * p95, 0 sends none; default `[gateway] hedge_after_ms`.
   */
  hedgeAfterMs?: number | 'auto';
  /** False: never answer from the decision cache nor fill it (calibrate measures the engine live); default true. */
  cache?: boolean;
  /**
   * Whose answers the decision cache keeps apart: a server sets it to its authenticated caller (never from a
   * request), so callers never share answers and none holds more than half the cache. Absent: one shared scope.
   */
  cacheScope?: string;
}

/**
 * One engine's part in a call: answered, failed (and why), or skipped while cooling down; for a hedged request
 * to a pool, `hedged` (the second copy answered first) and `cancelled` (the copy that lost, stopped); `cached`
 * when an identical recent request's reply answered it, no engine asked.
 */
export interface AttemptRecord extends ModelRef {
  outcome: 'answered' | 'failed' | 'skipped' | 'hedged' | 'cancelled' | 'cached';
  /** The replica asked, when the provider is a pool of several (`endpoints`). */
  endpoint?: string;
  /** The second copy of a request, sent to another replica after `hedge_after_ms`. */
  hedge?: true;
  error?: DecisionError;
  latencyMs: number;
}

/** One question's outcome: one bad answer never discards the others. */
export type QuestionOutcome =
  | {
      status: 'ok';
      answer: Answer;
      /** Below the threshold in force (the answer is kept). */
      belowThreshold: boolean;
      /** The engine's words on its answer, when it gave any. */
      rationale?: string;
      /** Probabilities spread from a lone confidence: not the engine's own, and never calibrated. */
      approximate?: boolean;
    }
  | { status: 'error'; error: DecisionError };

export interface DecisionOutcome {
  requestId: string;
  answers: Record<string, QuestionOutcome>;
  /** The first engine of the chain (or the explicit one). */
  requested: ModelRef;
  /** The engine whose reply was read, when one was. */
  executed?: ModelRef;
  /** Every engine asked or skipped, in order. */
  attempts: AttemptRecord[];
  durationMs: number;
  /** The threshold the answers were held to. */
  threshold: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  approximate?: boolean;
  degraded?: boolean;
  /** Things worth knowing that did not fail the call, such as answers to questions nobody asked. */
  warnings?: string[];
}
