import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionErrorCode } from './decision-error';
import type { ModelRef } from './question.types';

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
 * new process per prompt (see `CooldownFile`). `set` with undefined forgets the key.
 */
export interface CooldownStore {
  get(key: string): CooldownEntry | undefined;
  set(key: string, entry: CooldownEntry | undefined): void;
}

export const COOLDOWN_STORE = Symbol('COOLDOWN_STORE');

/**
 * What a cooldown is kept under: the provider for the chain's engines (and the routing hook's file), the
 * provider and model for a model someone chose, so a model a caller picked cools itself, never the chain.
 */
export function cooldownKey(ref: ModelRef): string {
  return ref.model === undefined ? ref.provider : JSON.stringify([ref.provider, ref.model]);
}

/** Records kept for chosen models, whose names come from callers: past it the least recent are forgotten. */
const CHOSEN_MODELS_KEPT = 256;

/** The chain's records (a few, named by the config) apart from the chosen models' (bounded). */
class MemoryStore implements CooldownStore {
  private readonly providers = new Map<string, CooldownEntry>();
  private readonly chosenModels = new LRUCache<string, CooldownEntry>({ max: CHOSEN_MODELS_KEPT });

  get(key: string) {
    return key.startsWith('[') ? this.chosenModels.get(key) : this.providers.get(key);
  }
  set(key: string, entry: CooldownEntry | undefined) {
    const map = key.startsWith('[') ? this.chosenModels : this.providers;
    if (entry) map.set(key, entry);
    else map.delete(key);
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
    const left = this.peekMs(provider);
    const entry = this.store.get(provider);
    if (left < 0) this.store.set(provider, { failures: entry!.failures, until: this.now() + this.windowMs, trial: true });
    // An end further ahead than the window (a lowered cooldown_s, a stale file, a clock that stepped back) is
    // clamped to it and kept, so the window ends on time rather than being held at full length forever.
    else if (entry && entry.until - this.now() > this.windowMs) this.store.set(provider, { ...entry, until: this.now() + this.windowMs });
    return Math.max(left, 0);
  }

  /**
   * Milliseconds left in `provider`'s cooldown, without claiming the trial (for `system1_health`, which
   * only reports it): 0 when none runs, negative when its window is over and the trial is free.
   */
  peekMs(provider: string): number {
    if (this.windowMs === 0) return 0;
    const entry = this.store.get(provider);
    if (!entry || entry.until === 0) return 0;
    // Capped at the window (remainingMs also rewrites such an end), so it never skips the engine for longer.
    const left = Math.min(entry.until - this.now(), this.windowMs);
    return left > 0 ? left : -1;
  }

  /** An answer: the provider is well again (a health probe is not one: /health may answer while decisions hang). */
  succeeded(provider: string): void {
    if (this.store.get(provider)) this.store.set(provider, undefined);
  }

  /** A failed attempt; a timeout, or the third failure in a row, starts a cooldown. */
  failed(provider: string, code: DecisionErrorCode): void {
    if (this.windowMs === 0 || NOT_THE_ENGINE.has(code)) return;
    const previous: CooldownEntry = this.store.get(provider) ?? { failures: 0, until: 0 };
    const failures = previous.failures + 1;
    const cools = previous.trial === true || code === DecisionErrorCode.Timeout || failures >= FAILURES_BEFORE_COOLDOWN;
    this.store.set(provider, { failures: cools ? 0 : failures, until: cools ? this.now() + this.windowMs : previous.until });
  }
}
