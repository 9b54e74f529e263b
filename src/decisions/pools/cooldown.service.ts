import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { LoadedConfig } from '../../config/config.loader';
import type { DecisionErrorCode } from '../errors/decision-error';
import { ERROR_MEANINGS } from '../errors/error-meanings';
import type { ModelRef } from '../questions/question.types';
import type { PoolMember } from '../registry/engine-pool';
import { IN_PROCESS, type SharedState } from '../../state/shared-state';
import { CooldownMirror } from './cooldown-mirror';
import type { CooldownEntry, CooldownStore } from './cooldown-entry';

export type { CooldownEntry, CooldownStore } from './cooldown-entry';

/** Consecutive failures (of any kind) after which a provider cools down even without a timeout. */
export const FAILURES_BEFORE_COOLDOWN = 3;

/**
 * The first window is `cooldown_s` over this; each failure again (during a window, or at its trial) doubles
 * it, up to `cooldown_s`. With the default 30 s: 3.75, 7.5, 15, then 30 s.
 */
export const FIRST_WINDOW_DIVISOR = 8;

/** What a call may do with one engine now: ask it (perhaps as the one trial after a window), or skip it. */
export interface Admission {
  /** Milliseconds left in the window; 0 when the engine may be asked. */
  readonly remainingMs: number;
  /** This call holds the one trial: it must end it with `succeeded`, `failed` or `release`. */
  readonly trial: boolean;
}

/** May be asked, no trial held: the answer for every call to an engine that is not cooling down. */
const ADMITTED: Admission = Object.freeze({ remainingMs: 0, trial: false });

/** An engine's cooldown as `system1_health` shows it. */
export interface CooldownState {
  state: 'ok' | 'cooling' | 'trial';
  /** Milliseconds left in the window (0 unless cooling). */
  remainingMs: number;
  /** Failures in a row not yet cooling it. */
  failures: number;
  /** The backoff's step: 0 when not cooling, else 1 for the first window, 2 for the doubled one, ... */
  level: number;
}

export const COOLDOWN_STORE = Symbol('COOLDOWN_STORE');

/**
 * What a cooldown is kept under: the provider for the chain's engines (and the routing hook's file), the
 * provider and model for a model someone chose, so a model a caller picked cools itself, never the chain.
 */
export function cooldownKey(ref: ModelRef): string {
  return ref.model === undefined ? ref.provider : JSON.stringify([ref.provider, ref.model]);
}

/**
 * What an endpoint's cooldown is kept under: the provider's own key for a single engine (as before pools), and
 * that key with the endpoint for a replica of a pool, so each replica cools on its own.
 */
export function endpointKey(ref: ModelRef, member: Pick<PoolMember, 'url'>): string {
  const key = cooldownKey(ref);
  return member.url === '' ? key : `${key}@${member.url}`;
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
 * Provider cooldown, as LiteLLM's cooldowns and Portkey's circuit breaker do it, with the lessons their users
 * reported: a provider whose attempt timed out, or that failed three times in a row, is skipped for a window;
 * a failure again before it answers (a call that was in flight, or the one trial after the window) doubles
 * the window, up to `[gateway] cooldown_s`. Once a window is over one call tries it again (the trial), and its
 * answer ends the cooldown. A trial that ends without a verdict on the engine (the caller cancelled, the
 * gateway refused the request) hands the trial back, so the engine is never skipped for nothing. A refused
 * connection or an HTTP error alone costs milliseconds, so it does not start one.
 */
@Injectable()
export class CooldownService {
  private readonly store: CooldownStore;
  private readonly listeners = new Set<(key: string) => void>();

  /**
   * `store`: where the records are kept (a file for the hooks); `shared`: the deployment's store (`[state] url`),
   * through which every process of the team sees the others' cooldowns. Neither: in memory, this process's own.
   */
  constructor(
    private readonly config: LoadedConfig,
    store?: CooldownStore,
    shared?: SharedState,
  ) {
    const trialHoldMs = config.gateway.timeout_s * 1000 + 1000;
    this.store =
      store ??
      (shared && shared !== IN_PROCESS
        ? new CooldownMirror(shared, new MemoryStore(), trialHoldMs, () => this.now())
        : new MemoryStore());
  }

  /** The clock; tests move it. */
  protected now(): number {
    return Date.now();
  }

  /** The longest window: `cooldown_s`. */
  private get capMs(): number {
    return this.config.gateway.cooldown_s * 1000;
  }

  /** The window at step `level` of the backoff. */
  windowMs(level: number): number {
    const first = this.capMs / FIRST_WINDOW_DIVISOR;
    return Math.min(this.capMs, first * 2 ** Math.max(0, level - 1));
  }

  /**
   * Whether `key` may be asked now. The first call after a window claims the one trial, held until it ends
   * (at most `holdMs`, the attempt's budget, or the window, whichever is longer); the others keep waiting.
   */
  admit(key: string, holdMs = 0): Admission {
    const left = this.peekMs(key);
    const entry = this.store.get(key);
    if (left < 0) {
      const hold = Math.min(this.capMs, Math.max(this.windowMs(entry!.level ?? 1), holdMs));
      this.write(key, { ...entry!, until: this.now() + hold, trial: true });
      return { remainingMs: 0, trial: true };
    }
    // An end further ahead than cooldown_s (a lowered cooldown_s, a stale file, a clock that stepped back) is
    // clamped to it and kept, so the window ends on time rather than being held at full length forever.
    if (entry && entry.until - this.now() > this.capMs) this.write(key, { ...entry, until: this.now() + this.capMs });
    return left > 0 ? { remainingMs: left, trial: false } : ADMITTED;
  }

  /** Milliseconds left in `key`'s cooldown (0 when it may be asked), claiming the trial as {@link admit} does. */
  remainingMs(key: string): number {
    return this.admit(key).remainingMs;
  }

  /**
   * Milliseconds left in `key`'s cooldown, without claiming the trial (for `system1_health`, which only
   * reports it): 0 when none runs, negative when its window is over and the trial is free.
   */
  peekMs(key: string): number {
    if (this.capMs === 0) return 0;
    const entry = this.store.get(key);
    if (!entry || entry.until === 0) return 0;
    // Capped at cooldown_s (admit also rewrites such an end), so it never skips the engine for longer.
    const left = Math.min(entry.until - this.now(), this.capMs);
    return left > 0 ? left : -1;
  }

  /** `key`'s cooldown as a person reads it, without claiming anything. */
  state(key: string): CooldownState {
    const entry = this.store.get(key);
    const left = this.peekMs(key);
    const failures = entry?.failures ?? 0;
    if (left === 0) return { state: 'ok', remainingMs: 0, failures, level: 0 };
    const level = entry?.level ?? 1;
    if (left < 0 || entry?.trial) return { state: 'trial', remainingMs: 0, failures, level };
    return { state: 'cooling', remainingMs: left, failures, level };
  }

  /**
   * When `key` may next be asked, in ms from now: 0 when it may be now, undefined while its trial runs (the
   * trial's answer decides, at any moment).
   */
  recoversInMs(key: string): number | undefined {
    const left = this.peekMs(key);
    if (left <= 0) return 0;
    return this.store.get(key)?.trial ? undefined : left;
  }

  /** An answer: the provider is well again (a health probe is not one: /health may answer while decisions hang). */
  succeeded(key: string): void {
    if (this.store.get(key)) this.write(key, undefined);
  }

  /**
   * A failed attempt. With no window on record, a timeout or the third failure in a row starts the first one;
   * with one on record (running, over, or on trial), it is a failure again: the next, doubled, window from now.
   * False when the failure says nothing about the engine (a cancel, a refusal before sending): nothing changed.
   */
  failed(key: string, code: DecisionErrorCode): boolean {
    if (this.capMs === 0 || !ERROR_MEANINGS[code].enginesFault) return false;
    const previous: CooldownEntry = this.store.get(key) ?? { failures: 0, until: 0 };
    if (previous.until !== 0) {
      const level = (previous.level ?? 1) + 1;
      const until = Math.max(previous.trial ? 0 : previous.until, this.now() + this.windowMs(level));
      this.write(key, entryOf(0, until, level));
      return true;
    }
    const failures = previous.failures + 1;
    const cools = ERROR_MEANINGS[code].coolsAtOnce || failures >= FAILURES_BEFORE_COOLDOWN;
    this.write(key, cools ? entryOf(0, this.now() + this.windowMs(1), 1) : { failures, until: 0 });
    return true;
  }

  /**
   * The trial call ended without a verdict on the engine (the caller cancelled, the gateway refused the
   * request, a fault of our own): the trial is free again for the next call.
   */
  release(key: string): void {
    const entry = this.store.get(key);
    if (!entry?.trial) return;
    this.write(key, entryOf(entry.failures, Math.min(entry.until, this.now()), entry.level ?? 1));
  }

  /** Calls `listener` with each key whose record changes in this process; returns its removal. */
  onChange(listener: (key: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private write(key: string, entry: CooldownEntry | undefined): void {
    this.store.set(key, entry);
    for (const listener of this.listeners) listener(key);
  }
}

/** An entry with the backoff's step written only past the first window (files of earlier versions lack it). */
function entryOf(failures: number, until: number, level: number): CooldownEntry {
  return { failures, until, ...(level > 1 && { level }) };
}
