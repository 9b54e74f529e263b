import { DecisionErrorCode } from './decision-error';

/** The kind of engine failure a person reads in health: timed out, unreadable, or else. */
export type FailureKind = 'timeout' | 'malformed' | 'error';

/** A failure that is an answer ("reason it through yourself"), as the metrics and the tallies name it. */
export type CodeAbstention = 'engine_abstained' | 'paused';

/** What one error code means to the pipeline, the cooldown and the surfaces that count decisions. */
export interface ErrorMeaning {
  /** The next engine of the chain is asked; otherwise the chain ends here. */
  fallsBack: boolean;
  /** The engine's own fault: counts toward its cooldown. False when it says nothing of the engine's health. */
  enginesFault: boolean;
  /** One such failure starts a cooldown window at once, not only the third in a row. */
  coolsAtOnce: boolean;
  /** Counted as an abstention rather than a failure; absent: a failure. */
  abstention?: CodeAbstention;
  failureKind: FailureKind;
}

/** What most codes share: a failure like any other, seen in health as an `error`. */
const PLAIN = { coolsAtOnce: false, failureKind: 'error' } as const;

/**
 * Each code's meaning, one row per code: a new `DecisionErrorCode` does not compile until it has its row.
 * The surfaces' own words for a code are their tables (`S1_CODES`, `LIBRARY_CODES`); this is the core's.
 */
export const ERROR_MEANINGS: Readonly<Record<DecisionErrorCode, ErrorMeaning>> = {
  // No engine was asked, or an engine said so of the request: nothing to fall back to.
  [DecisionErrorCode.InvalidRequest]: { ...PLAIN, fallsBack: false, enginesFault: true },
  [DecisionErrorCode.ConfigError]: { ...PLAIN, fallsBack: false, enginesFault: true },
  [DecisionErrorCode.Paused]: { ...PLAIN, fallsBack: false, enginesFault: true, abstention: 'paused' },
  // The engine failed: ask the next one.
  [DecisionErrorCode.Unavailable]: { ...PLAIN, fallsBack: true, enginesFault: true },
  [DecisionErrorCode.ProviderError]: { ...PLAIN, fallsBack: true, enginesFault: true },
  [DecisionErrorCode.InvalidResponse]: { ...PLAIN, fallsBack: true, enginesFault: true, failureKind: 'malformed' },
  // A hanging engine costs every caller its timeout, so one is enough to cool it.
  [DecisionErrorCode.Timeout]: { fallsBack: true, enginesFault: true, coolsAtOnce: true, failureKind: 'timeout' },
  // Refused before sending, or skipped: another engine may take it, and this one is not to blame.
  [DecisionErrorCode.Unsupported]: { ...PLAIN, fallsBack: true, enginesFault: false },
  [DecisionErrorCode.LimitExceeded]: { ...PLAIN, fallsBack: true, enginesFault: false },
  [DecisionErrorCode.CoolingDown]: { ...PLAIN, fallsBack: true, enginesFault: false },
  // The caller gave up: the chain ends, and the engine is not to blame.
  [DecisionErrorCode.Cancelled]: { ...PLAIN, fallsBack: false, enginesFault: false },
  // An answer ("reason it through yourself"), never a reason to ask another engine.
  [DecisionErrorCode.Abstained]: { ...PLAIN, fallsBack: false, enginesFault: false, abstention: 'engine_abstained' },
};
