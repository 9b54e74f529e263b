import { isRecord } from '../../common/is-record';
import type { SharedState } from '../../state/shared-state';
import type { CooldownEntry, CooldownStore } from './cooldown-entry';

/** How long a process that lost the team's trial waits before it asks for the slot again. */
const LOST_CLAIM_RETRY_MS = 250;

/**
 * Cooldowns shared by a deployment's processes, while the decision path stays synchronous: every record is
 * kept in this process (`local`) and read from there; each one written is published through the store, and
 * every process applies the others' as they arrive, so an engine one replica saw fail is skipped by all within
 * moments, with the same backoff. When a window ends, the team has one trial: a process asks the store for the
 * trial slot (SET NX PX, so a process that dies holding it never leaks it) and, until it has it, the engine
 * still reads as cooling for a moment; the winner's trial is published, so the others wait for its outcome,
 * and the slot is handed back on any outcome. While the store is down, each process keeps its own cooldowns.
 */
export class CooldownMirror implements CooldownStore {
  /** Per key: this process holds the team's trial ('mine'), is asking ('asking'), or lost it until a time. */
  private readonly claims = new Map<string, 'mine' | 'asking' | number>();

  constructor(
    private readonly shared: SharedState,
    private readonly local: CooldownStore,
    /** How long a trial slot is held at most: the attempt's timeout and a margin. */
    private readonly trialHoldMs: number,
    private readonly now: () => number = Date.now,
  ) {
    shared.onMessage((message) => {
      if (message.kind === 'cooldown') this.apply(message.key, message.entry);
    });
  }

  get(key: string): CooldownEntry | undefined {
    const entry = this.local.get(key);
    const now = this.now();
    if (!entry || entry.trial || entry.until === 0 || entry.until > now || !this.shared.up()) return entry;
    const claim = this.claims.get(key);
    if (claim === 'mine') return entry;
    if (claim === undefined || (typeof claim === 'number' && claim <= now)) this.askForTrial(key);
    // Its window is over, but the trial is the team's: cooling a moment longer, until the store says whose it is.
    const waitUntil = typeof this.claims.get(key) === 'number' ? (this.claims.get(key) as number) : now + 1;
    return { ...entry, until: Math.max(waitUntil, now + 1) };
  }

  set(key: string, entry: CooldownEntry | undefined): void {
    this.local.set(key, entry);
    this.shared.publishCooldown(key, entry);
    if (entry?.trial) return;
    // An outcome (an answer, a failure again, a trial handed back): the slot goes back to the team.
    if (this.claims.get(key) === 'mine') this.shared.releaseTrial(key);
    this.claims.delete(key);
  }

  private askForTrial(key: string): void {
    this.claims.set(key, 'asking');
    void this.shared.claimTrial(key, this.trialHoldMs).then((won) => {
      if (this.claims.get(key) !== 'asking') return;
      // No store to ask (it went down): this process decides alone, as without one.
      if (won === undefined || won) this.claims.set(key, 'mine');
      else this.claims.set(key, this.now() + LOST_CLAIM_RETRY_MS);
    });
  }

  /** Another process's record (read defensively: the channel is shared), kept here as if written here. */
  private apply(key: string, entry: unknown): void {
    if (entry === null) {
      this.local.set(key, undefined);
      this.claims.delete(key);
      return;
    }
    if (!isRecord(entry) || !Number.isFinite(entry.failures) || !Number.isFinite(entry.until)) return;
    const record: CooldownEntry = {
      failures: entry.failures as number,
      until: entry.until as number,
      ...(entry.trial === true && { trial: true }),
      ...(Number.isSafeInteger(entry.level) && (entry.level as number) > 1 && { level: entry.level as number }),
    };
    this.local.set(key, record);
    // Another's trial or a new window: whatever this process was asking or holding is no longer the question.
    if (this.claims.get(key) !== 'mine' || !record.trial) this.claims.delete(key);
  }
}
