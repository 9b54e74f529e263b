import { SettingType } from '../config/setting-types';
import type { QuestionCapabilities } from './question-capabilities';
import type { DecisionState, ImageAttachment, Question, QuestionError } from './question.types';

/**
 * The contract between the gateway and one engine. Providers translate a batch of questions into one
 * engine's API and back; they never apply thresholds, fallbacks or calibration (the gateway does).
 *
 * To add an engine, write one injectable class implementing {@link ProviderDefinition} and provide it
 * under the `SYSTEM1_PROVIDERS` multi-token from your own module: no gateway code changes.
 */
export interface ProviderDefinition {
  /** The name used in `[gateway] provider`, `fallback`, `[providers.<name>]` and `SYSTEM1_<NAME>_<KEY>`. */
  readonly name: string;
  /** One line for `system1_capabilities`. */
  readonly description: string;
  /**
   * Every setting this provider reads and its type. A key not listed here is a config error. Secrets are
   * not settings: read them from the environment in `create`.
   */
  readonly settings: Readonly<Record<string, ProviderSettingSpec>>;
  /**
   * The environment variable the engine's key is read from, when it takes one. Named in the config error
   * for a key written into the file, and in `system1_capabilities`.
   */
  readonly keyVariable?: string;
  /**
   * Builds a configured engine from validated settings (defaults filled in). Throw
   * {@link ProviderSettingError} for an unusable combination; it becomes a config error naming the key.
   */
  create(settings: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider;
}

export interface ProviderSettingSpec {
  type: SettingType<unknown>;
  /** Omitted = unset. */
  default?: unknown;
  /** One line for documentation and `capabilities`. */
  describe: string;
}

export interface ProviderCreateContext {
  /** The process environment, for secrets such as `SYSTEM1_<NAME>_API_KEY`. */
  env: Readonly<Record<string, string | undefined>>;
}

/** A configured engine. */
export interface System1Provider {
  readonly name: string;
  /** Non-secret facts about the engine, shown by `system1_capabilities` and used by the gateway. */
  capabilities(): ProviderCapabilities;
  /**
   * Answers every question of the batch about one state. The result maps question id to an answer; the
   * gateway checks it (see {@link ProviderAnswer}), so a provider may pass an engine's reply through.
   * Throw {@link ProviderError} for a transport or engine failure and {@link MalformedResponseError} for a
   * reply that cannot be read. `signal` aborts at the attempt's timeout: pass it to every I/O call.
   */
  decide(batch: DecisionBatch, context: AttemptContext): Promise<Record<string, unknown>>;
  /**
   * Answers typed questions (choice, noul, score, box) natively, for engines that take them (the System One
   * protocol). Without it the library asks typed questions through `decide` as choices. The answers are in
   * the System One wire shape (wire-contracts §1.2) and the gateway checks each one; throw
   * {@link MalformedResponseError} only when the reply as a whole cannot be read.
   */
  evaluate?(request: EvaluateRequest, context: AttemptContext): Promise<EvaluateReply>;
  /** A cheap liveness probe. Must honour `signal`. */
  health(context: AttemptContext): Promise<HealthProbeResult>;
}

export interface ProviderCapabilities {
  /** Most options one question may have; absent = no limit of its own. */
  max_options?: number;
  /** Whether several questions about one state are answered in one engine call. */
  batch: boolean;
  /** Whether answers carry per-option probabilities (what calibration rescales). */
  probabilities: boolean;
  /** The model or checkpoint asked, when the provider pins one. */
  model?: string | null;
  /** Which typed questions `evaluate` takes and its limits; absent when the provider has no `evaluate`. */
  questions?: QuestionCapabilities;
  [fact: string]: unknown;
}

export interface DecisionQuestion {
  /** Unique within the batch; answers are keyed by it. */
  id: string;
  text: string;
  /** Two or more candidates; a yes/no question arrives as `["yes", "no"]` with `yesNo` set. */
  options: string[];
  yesNo: boolean;
}

export interface DecisionBatch {
  /** The state every question is about: the request's `context`. */
  state: Record<string, unknown> | undefined;
  questions: DecisionQuestion[];
}

/** Typed questions about one state, for {@link System1Provider.evaluate}. Treat it as read-only. */
export interface EvaluateRequest {
  state: DecisionState;
  questions: Readonly<Record<string, Question>>;
  images?: readonly ImageAttachment[];
  longContext?: boolean;
  /**
   * The model the caller asked for, for engines registered at run time that serve several. Built-in
   * providers ignore it: a per-call model is applied to their settings before they are built.
   */
  model?: string;
}

export interface EvaluateReply {
  /** Question id to the engine's answer as received (System One shape); checked by the gateway. */
  answers: Record<string, unknown>;
  /** Questions the engine declined or could not answer, while it answered the others. */
  errors?: Record<string, QuestionError>;
  /** The model that actually answered, when the engine says. */
  model?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  approximate?: boolean;
  degraded?: boolean;
}

export interface AttemptContext {
  signal: AbortSignal;
  requestId: string;
}

/**
 * What the gateway accepts per question. Anything else is `malformed_response`.
 * - a decision: `decision` is one of the question's options, `confidence` in [0, 1], optional
 *   `probabilities` over the options and a `rationale`;
 * - an abstention: `{ abstain: true, rationale }` ("reason it through yourself"; never a fallback).
 */
export type ProviderAnswer =
  | { decision: string; confidence: number; probabilities?: Record<string, number>; rationale?: string }
  | { abstain: true; rationale?: string };

export interface HealthProbeResult {
  ok: boolean;
  detail: string;
}

/** A transport or engine failure; the message is shown to users, so it must not contain secrets. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

/** An engine reply the provider cannot read; the message is shown to users. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** An unusable setting, reported as a config error on `providers.<name>.<key>`. */
export class ProviderSettingError extends Error {
  override readonly name = 'ProviderSettingError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}
