import type { DecisionError } from '../../decisions/errors/decision-error';
import type {
  AttemptContext,
  EvaluateRequest,
  HealthProbeResult,
  ProviderSettingSpecs,
} from '../../decisions/registry/provider.interface';
import type { QuestionCapabilities } from '../../decisions/questions/question-capabilities';
import type { EngineResponse } from '../http/engine-http.client';
import type { BareCandidates } from './systemone-protocol';

/** The settings every System One engine has: where it listens and, unless it serves one, the model to ask. */
export type SystemOneSettings = { endpoint: string; allow_remote?: boolean; model?: string };

/** Who answered a request: the model, as the reply names it, and the words for the rationale. */
export interface AnsweredBy {
  model: string | undefined;
  source: string;
}

/** Words about a key: fixed, or written for the variable the key is read from. */
export type KeyWords = string | ((keyVariable: string) => string);

/** The words of `words` for a key read from `keyVariable`. */
export function keyWords(words: KeyWords, keyVariable: string): string {
  return typeof words === 'function' ? words(keyVariable) : words;
}

/** What a dialect's functions see of one configured engine. */
export interface DialectEngine<S extends SystemOneSettings> {
  readonly settings: S;
  /** Where the key is read from, for messages that say how to set it (never the key). */
  readonly keyVariable: string;
  /** The key, when its variable is set: read per call so a rotated key needs no restart. */
  apiKey(): string | undefined;
  /** What to do about a refused key, naming its variable only (the dialect's `key.refused`, or the usual words). */
  keyAdvice(): string;
  /** A GET to the engine, with the key and the guards of every call (for a health probe). */
  get(path: string, signal: AbortSignal): Promise<EngineResponse>;
}

/**
 * One engine's dialect of the System One protocol, as data: its definition (name, settings), how a request
 * is sent (path, headers, how a question is written), how the reply is read, its limits and its health
 * probe. `DialectProvider` is the one engine that speaks every dialect: every question of a request goes in
 * ONE POST, and each answer comes back with a rationale naming who answered and the probabilities best first.
 * Every field but the definition's and `health` is optional; leaving one out means the protocol's own way.
 *
 * @example
 * export const ECHO: SystemOneDialect<EchoSettings> = {
 *   name: 'echo',
 *   description: 'an echo server speaking System One',
 *   keyVariable: 'SYSTEM1_ECHO_API_KEY',
 *   settings: {
 *     ...httpEngineSettings('http://127.0.0.1:9000'),
 *     model: { type: text(), default: 'e1', describe: 'model' },
 *   },
 *   reach: 'local',
 *   health: async (engine, { signal }) => (await engine.get('/health', signal), { ok: true, detail: 'echo up' }),
 * };
 */
export interface SystemOneDialect<S extends SystemOneSettings> {
  /** The provider's name; also the engine's, in rationales and messages. */
  readonly name: string;
  readonly description: string;
  /** The variable holding the bearer token, read at call time. */
  readonly keyVariable: string;
  readonly settings: ProviderSettingSpecs<S>;
  /**
   * `local`: this machine unless `allow_remote`. `hosted`: a remote API by nature, so https unless the
   * endpoint is this machine, since every request carries the key.
   */
  readonly reach: 'local' | 'hosted';
  /** Throws `ProviderSettingError` for an unusable combination of settings, before the endpoint is checked. */
  check?(settings: S): void;

  /** Where decisions are posted, relative to the endpoint; default `/v1/systemone`. */
  path?(settings: S): string;
  /** Extra headers for a request (an experimental feature's opt-in). */
  headers?(request: EvaluateRequest): Record<string, string>;
  /** How a question is written: see `typedSystemOneRequest`. */
  readonly question?: {
    /** Yes/no questions go as the choice `yes` / `no`, for an engine whose `noul` does not follow the input. */
    readonly noulAsChoice?: boolean;
    readonly bareCandidates?: BareCandidates;
  };
  /**
   * Questions declined without asking (an abstention the engine is known to get wrong), keyed by id; the
   * others are sent.
   */
  decline?(request: EvaluateRequest, settings: S): Record<string, DecisionError>;

  /** How an answer is read. */
  readonly answer?: {
    /** The System One reply inside the response body (an engine may wrap it in an envelope). */
    unwrap?(body: unknown, engine: DialectEngine<S>): unknown;
    /**
     * One answer in the protocol's common shape, from the engine's own variant of it; throws
     * `MalformedResponseError` for an engine-specific field that is wrong.
     */
    normalise?(id: string, answer: Record<string, unknown>): Record<string, unknown>;
    /**
     * Who answered, from the reply body and its `model`: the model, and the words that open each rationale
     * (default: the reply's model, and `<name> <model>`). May throw `MalformedResponseError` for a reply from
     * the wrong model.
     */
    answeredBy?: (body: Record<string, unknown>, model: string | undefined, settings: S) => AnsweredBy;
  };

  /** The typed questions taken and the published limits; default choice, yes/no and score, 2 to 10 levels. */
  limits?(settings: S): QuestionCapabilities;
  /** Facts added to the capabilities (`max_options`, `remote`). */
  readonly facts?: { readonly max_options?: number; readonly remote?: boolean };

  /**
   * The words for a key problem. A function is given where the key is read from (the definition's
   * variable, or the one a provider factory reads instead), so the words name what the user can set.
   */
  readonly key?: {
    /** Set when the engine cannot be asked without a key: the error thrown before any request. */
    readonly required?: KeyWords;
    /** What to do about a refused key (401, 403). */
    readonly refused?: KeyWords;
  };
  /** Advice added to an HTTP status's error (beside the key advice on 401 and 403). */
  readonly statusAdvice?: Readonly<Partial<Record<number, string>>>;
  /** A cheap liveness probe. Must honour `signal`. */
  health(engine: DialectEngine<S>, context: AttemptContext): Promise<HealthProbeResult>;
}
