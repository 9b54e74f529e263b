import type { ModelRef } from '../decisions/questions/question.types';

/** How `createSystem1` was asked to run; anything left out comes from the user's config. */
export interface System1Options {
  /** A config file to read instead of the usual place (`SYSTEM1_CONFIG`, then ~/.config/system1/config.toml). */
  configFile?: string;
  /** The environment read for `SYSTEM1_*` overrides and engine keys; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The first engine of the chain; default `[gateway] provider`. */
  defaultModel?: ModelRef;
  /** Tried in order after it; default `[gateway] fallback`. */
  fallbackModels?: ModelRef[];
  /** Each attempt's budget in milliseconds; default 800 (dsh-system1's), whatever `[gateway] timeout_s` says. */
  timeoutMs?: number;
  /** Answers below it are marked `belowThreshold`; default `[gateway] min_confidence`. */
  minConfidence?: number;
  /** Where log lines go (stderr by default); false for none. */
  logger?: false | ((line: string) => void);
  /**
   * The models a call may name besides the chain's: `provider`, `provider:model`, `provider:*` or `*`. Default
   * any provider the config or the application offers (dsh-system1's rule); give it when calls come from
   * people who should not choose the engine or spend the keys of others (a call outside it is refused).
   */
  callerModels?: string[];
  /** False: never skip an engine for its recent failures (dsh-system1 has no cooldown); default true. */
  cooldown?: boolean;
  /**
   * True: when every engine of the chain is cooling down, a call waits for the first to recover (within one
   * attempt's `timeoutMs`) instead of failing at once; default `[gateway] wait_for_recovery`.
   */
  waitForRecovery?: boolean;
  /**
   * For a provider with several `endpoints`: a request not answered after this many ms also goes to a second
   * replica, the first answer wins; `"auto"` waits for the pool's recent p95, 0 sends none; default
   * `[gateway] hedge_after_ms`.
   */
  hedgeAfterMs?: number | 'auto';
  /**
   * Seconds an identical request is answered from the decision cache, no engine asked; 0 turns it off. Default
   * `[gateway] cache_ttl_s`. `createSystem1` only: with `system1From`, the application's config decides.
   */
  cacheTtlS?: number;
}
