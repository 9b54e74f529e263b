import type { ModelRef } from '../decisions/question.types';

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
}

