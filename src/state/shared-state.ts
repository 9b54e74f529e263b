/**
 * What the processes of one deployment share when `[state] url` is set: per-caller rate buckets, cooldowns and
 * their trial slots, the decision cache and the switches. Every call answers `undefined` when the store cannot
 * answer in time (down, slow, or holding something not ours): the caller then uses its own, in-process state,
 * which is what every process does without a store (the in-process implementation, {@link IN_PROCESS}).
 */
export interface SharedState {
  /** Where the state is kept, as logs and `system1_health` show it: `process`, or the store without credentials. */
  readonly address: string;
  /** Whether the store answers now (always false in-process: nothing is shared). */
  up(): boolean;
  /** Takes one token from `bucket` (a token bucket of `perMinute`, `burst`): 0, or the ms until one is there. */
  take(bucket: string, perMinute: number, burst: number): Promise<number | undefined>;
  /** A cached reply's text, or undefined (none, or the store could not say). */
  cached(key: string): Promise<string | undefined>;
  /** Keeps a reply's text for `ttlMs`; nothing waits on it. */
  keep(key: string, text: string, ttlMs: number): void;
  /** The switch's value (pause, fits) as last written, null when never written; undefined: the store could not say. */
  switchValue(name: string): Promise<string | null | undefined>;
  /** Writes a switch and tells every process at once; false when the store did not take it. */
  setSwitch(name: string, value: string): Promise<boolean>;
  /** A cooldown record written (undefined: cleared), for every process; nothing waits on it. */
  publishCooldown(key: string, entry: unknown): void;
  /** Calls `listener` with each cooldown record and switch another process writes; returns its removal. */
  onMessage(listener: (message: StateMessage) => void): () => void;
  /** Claims the one trial slot of `key` for `holdMs` across the team (expires by itself); undefined: no store. */
  claimTrial(key: string, holdMs: number): Promise<boolean | undefined>;
  /** Hands the trial slot of `key` back; nothing waits on it. */
  releaseTrial(key: string): void;
  /** Resolves once the store answers (true), or false after `limitMs`: a one-shot command waits for its connection. */
  ready(limitMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** What another process wrote: a cooldown record (`entry` null when cleared), or a switch's new value. */
export type StateMessage =
  { kind: 'cooldown'; key: string; entry: unknown } | { kind: 'switch'; name: string; value: string };

/** The token the Nest root provides the store under; absent (the hooks, no `[state] url`) = in-process. */
export const SHARED_STATE = Symbol('SHARED_STATE');

const nothing = () => Promise.resolve(undefined);

/**
 * The in-process implementation: shares nothing, so every service keeps its own state in memory exactly as
 * before `[state]` existed. Its answers are all "ask your own state".
 */
export const IN_PROCESS: SharedState = Object.freeze({
  address: 'process',
  up: () => false,
  take: nothing,
  cached: nothing,
  keep: () => undefined,
  switchValue: nothing,
  setSwitch: () => Promise.resolve(false),
  publishCooldown: () => undefined,
  onMessage: () => () => undefined,
  claimTrial: nothing,
  releaseTrial: () => undefined,
  ready: () => Promise.resolve(false),
  close: () => Promise.resolve(),
});
