/** One provider's recent record: failures in a row, and until when (epoch ms) it is skipped. */
export interface CooldownEntry {
  failures: number;
  /** When the window ends (epoch ms); 0 when none was started since the engine last answered. */
  until: number;
  /** One call is trying the provider again after its window; the others wait until it ends. */
  trial?: boolean;
  /** Windows in a row with no answer between them (the backoff's step); absent = 1. */
  level?: number;
}

/**
 * Where the record is kept: in memory for a long-lived server, in a file for the routing hook, which is a
 * new process per prompt (see `CooldownFile`). `set` with undefined forgets the key.
 */
export interface CooldownStore {
  get(key: string): CooldownEntry | undefined;
  set(key: string, entry: CooldownEntry | undefined): void;
}
