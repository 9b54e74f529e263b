import { type SettingType } from '../../config/setting-types';
import type { DecisionError } from '../errors/decision-error';
import type { QuestionCapabilities } from '../questions/question-capabilities';
import type { DecisionState, ImageAttachment, Question } from '../questions/question.types';

/**
 * The contract between the gateway and one engine. Providers translate a batch of typed questions into one
 * engine's API and back; they never apply thresholds, fallbacks or calibration (the decision pipeline does).
 *
 * To add an engine, write one injectable class implementing {@link ProviderDefinition} and provide it
 * under the `SYSTEM1_PROVIDERS` multi-token from your own module: no gateway code changes.
 */
export interface ProviderDefinition<S extends object = Readonly<Record<string, unknown>>> {
  /** The name used in `[gateway] provider`, `fallback`, `[providers.<name>]` and `SYSTEM1_<NAME>_<KEY>`. */
  readonly name: string;
  /** One line for `system1_capabilities`. */
  readonly description: string;
  /**
   * Every setting this provider reads and its type. A key not listed here is a config error. Secrets are
   * not settings: read them from the environment in `create`.
   */
  readonly settings: ProviderSettingSpecs<S>;
  /**
   * The environment variable the engine's key is read from, when it takes one. Named in the config error
   * for a key written into the file, and in `system1_capabilities`.
   */
  readonly keyVariable?: string;
  /**
   * Builds a configured engine from validated settings (defaults filled in, each value of its setting's
   * type: see `readProviderSettings`). Throw {@link ProviderSettingError} for an unusable combination; it
   * becomes a config error naming the key.
   */
  create(settings: S, context: ProviderCreateContext): System1Provider;
}

/**
 * One spec per setting of `S`, typed by its value: a setting `S` always has needs a default, an optional one
 * may go unset. Write `S` as a `type` (an object type, not an interface) so the definition joins the list of
 * untyped ones the registry reads.
 *
 * @example
 * type EchoSettings = { endpoint: string; allow_remote: boolean; model?: string };
 * const settings: ProviderSettingSpecs<EchoSettings> = {
 *   ...httpEngineSettings('http://127.0.0.1:9000'),
 *   model: { type: text(), describe: 'model id; unset: the server picks' },
 * };
 */
export type ProviderSettingSpecs<S> = {
  readonly [K in keyof S]-?: undefined extends S[K]
    ? ProviderSettingSpec<Exclude<S[K], undefined>>
    : ProviderSettingSpec<S[K]> & { default: S[K] };
};

export interface ProviderSettingSpec<T = unknown> {
  type: SettingType<T>;
  /** Omitted = unset. */
  default?: T;
  /** One line for documentation and `capabilities`. */
  describe: string;
}

export interface ProviderCreateContext {
  /** The process environment, for secrets such as `SYSTEM1_<NAME>_API_KEY`. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * A configured engine: the one interface of built-in engines, a team's class under `SYSTEM1_PROVIDERS` and
 * an object given to `registerProvider`. Engines that only pick among options extend `ChoiceProvider`.
 */
export interface System1Provider {
  readonly name?: string;
  /**
   * True for a stand-in the operator did not name: the mock the installer wrote because it found no engine.
   * Surfaces that answer in a real model's place (serve-openai's fast path, the served Decisions API) refuse it.
   */
  readonly placeholder?: boolean;
  /** Non-secret facts about the engine, shown by `system1_capabilities` and used by the pipeline. */
  capabilities(): ProviderCapabilities;
  /**
   * The facts for a model a call names, for an engine that serves several with different capabilities (the
   * provider factories); without it, `capabilities()` stands for every model.
   */
  modelCapabilities?(model: string): ProviderCapabilities;
  /**
   * Answers every question of the request about one state. Answers are in the System One wire shape
   * (wire-contracts §1.2) and the pipeline reads each one against its question. Throw `ProviderError` for
   * a transport or engine failure and `MalformedResponseError` for a reply that cannot be read as a whole.
   * `context.signal` aborts at the attempt's deadline and on the caller's cancel: pass it to every I/O call.
   */
  evaluate(request: EvaluateRequest, context: AttemptContext): Promise<EvaluateReply>;
  /** A cheap liveness probe. Must honour `signal`. */
  health?(context: AttemptContext): Promise<HealthProbeResult>;
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
  /** Which typed questions `evaluate` takes and its limits; absent = choice, noul and score, no limits. */
  questions?: QuestionCapabilities;
  [fact: string]: unknown;
}

/** Typed questions about one state, for {@link System1Provider.evaluate}. Treat it as read-only. */
export interface EvaluateRequest {
  /** Absent when the caller gave no context (an engine that needs one sends `{}`). */
  state?: DecisionState;
  questions: Readonly<Record<string, Question>>;
  images?: readonly ImageAttachment[];
  longContext?: boolean;
  /**
   * The model the caller asked for, for engines registered at run time that serve several (the provider
   * factories ask it). Configured providers ignore it: a per-call model is applied to their settings
   * before they are built.
   */
  model?: string;
}

export interface EvaluateReply {
  /**
   * Question id to the engine's answer as received (System One shape, plus an optional `rationale` text);
   * read and checked by the pipeline.
   */
  answers: Record<string, unknown>;
  /** Questions the engine declined (`abstained`) or could not answer, while it answered the others. */
  errors?: Record<string, DecisionError>;
  /** The model that actually answered, when the engine says. */
  model?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Probabilities spread from a lone confidence rather than given by the engine. */
  approximate?: boolean;
  degraded?: boolean;
}

export interface AttemptContext {
  signal: AbortSignal;
  requestId: string;
}

export interface HealthProbeResult {
  ok: boolean;
  detail: string;
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
