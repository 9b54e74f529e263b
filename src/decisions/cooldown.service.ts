import { Inject, Injectable, Optional } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionErrorCode } from './decision-error';

/** Consecutive failures (of any kind) after which a provider cools down even without a timeout. */
export const FAILURES_BEFORE_COOLDOWN = 3;

/** One provider's recent record: failures in a row, and until when (epoch ms) it is skipped. */
export interface CooldownEntry {
  failures: number;
  until: number;
  /** One call is trying the provider again after its window; its failure starts a new cooldown at once. */
  trial?: boolean;
}

/** Failures that say nothing about the engine's health: refused before sending, or ended by the caller. */
const NOT_THE_ENGINE: ReadonlySet<DecisionErrorCode> = new Set([
  DecisionErrorCode.Cancelled,
  DecisionErrorCode.Unsupported,
  DecisionErrorCode.LimitExceeded,
  DecisionErrorCode.CoolingDown,
  DecisionErrorCode.Abstained,
]);

/**
 * Where the record is kept: in memory for a long-lived server, in a file for the routing hook, which is a
 * new process per prompt (see `CooldownFile`).
 */
export interface CooldownStore {
  read(): Record<string, CooldownEntry>;
  write(entries: Record<string, CooldownEntry>): void;
}

export const COOLDOWN_STORE = Symbol('COOLDOWN_STORE');

class MemoryStore implements CooldownStore {
  private entries: Record<string, CooldownEntry> = Object.create(null);
  read() {
    return this.entries;
  }
  write(entries: Record<string, CooldownEntry>) {
    this.entries = entries;
  }
}

/**
 * Provider cooldown, as LiteLLM's cooldowns and Portkey's circuit breaker do it: a provider whose attempt
 * timed out, or that failed three times in a row, is skipped for `[gateway] cooldown_s`; once the window is
 * over one call tries it again, and its success ends the cooldown. A refused connection or an HTTP error
 * alone costs milliseconds, so it does not start one: the next call should see an engine that came back.
 */
@Injectable()
export class CooldownService {
  private readonly store: CooldownStore;

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Optional() @Inject(COOLDOWN_STORE) store?: CooldownStore,
  ) {
    this.store = store ?? new MemoryStore();
  }

  /** The clock; tests move it. */
  protected now(): number {
    return Date.now();
  }

  private get windowMs(): number {
    return this.config.gateway.cooldown_s * 1000;
  }

  /**
   * Milliseconds left in `provider`'s cooldown; 0 when it may be asked. The first call after a window claims
   * the one trial (the others keep waiting until it ends).
   */
  remainingMs(provider: string): number {
    if (this.windowMs === 0) return 0;
    const entries = this.store.read();
    const entry = Object.hasOwn(entries, provider) ? entries[provider] : undefined;
    if (!entry || entry.until === 0) return 0;
    const now = this.now();
    // An end further ahead than the window (a lowered cooldown_s, a stale file, a clock that stepped back) is
    // clamped to it and kept, so the window ends on time rather than being held at full length forever.
    if (entry.until - now > this.windowMs) {
      this.store.write({ ...entries, [provider]: { ...entry, until: now + this.windowMs } });
      return this.windowMs;
    }
    const left = entry.until - now;
    if (left > 0) return left;
    this.store.write({ ...entries, [provider]: { failures: entry.failures, until: now + this.windowMs, trial: true } });
    return 0;
  }

  /** An answer (or a health probe that succeeded): the provider is well again. */
  succeeded(provider: string): void {
    const entries = this.store.read();
    if (!Object.hasOwn(entries, provider)) return;
    const { [provider]: _gone, ...rest } = entries;
    this.store.write(rest);
  }

  /** A failed attempt; a timeout, or the third failure in a row, starts a cooldown. */
  failed(provider: string, code: DecisionErrorCode): void {
    if (this.windowMs === 0 || NOT_THE_ENGINE.has(code)) return;
    const entries = this.store.read();
    const previous: CooldownEntry = Object.hasOwn(entries, provider) ? entries[provider] : { failures: 0, until: 0 };
    const failures = previous.failures + 1;
    const cools = previous.trial === true || code === DecisionErrorCode.Timeout || failures >= FAILURES_BEFORE_COOLDOWN;
    this.store.write({ ...entries, [provider]: { failures: cools ? 0 : failures, until: cools ? this.now() + this.windowMs : previous.until } });
  }
}
