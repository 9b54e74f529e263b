import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { LoadedConfig } from '../../config/config.loader';
import type { DecisionRequest, QuestionOutcome } from '../questions/decision.types';
import type { StrayAnswers } from './engine-reply';
import type { EvaluateReply, System1Provider } from '../registry/provider.interface';
import type { ModelRef } from '../questions/question.types';
import { IN_PROCESS, type SharedState } from '../../state/shared-state';

/** An engine's readable reply as the pipeline keeps it: read again, calibrated and thresholded at each use. */
export interface CachedReply {
  reply: EvaluateReply;
  stray: StrayAnswers;
  model: string | null | undefined;
  notes: readonly string[];
}

/** The largest share of the cache's bytes one entry may take: a few huge requests cannot push out the rest. */
const ENTRY_SHARE = 1 / 16;
/** The largest share of the cache's entries and bytes one scope (one authenticated caller) may hold. */
export const SCOPE_SHARE = 1 / 2;

/** What one scope holds: its keys from least to most recently used, with each entry's size. */
interface ScopeHoldings {
  keys: Map<string, number>;
  bytes: number;
}

/**
 * Recent engine replies (`[gateway] cache_ttl_s`, off by default), so an identical request is answered without
 * an engine call. The key is a SHA-256 of everything the reply depends on: the engine (the configured instance,
 * or the registration), the model, the fits in force, the state, the questions, images and long context; a
 * request that differs in any of them is a different key, so no caller can read the answer to another
 * request. Bounded by entries and by bytes (`cache_max_entries`, `cache_max_bytes`, least recently used out
 * first, one entry at most a sixteenth of the bytes). Each reply is kept as its JSON text and read back at each
 * use: the bytes counted are the memory held, however the engine built its reply (JSON that parses into many
 * small objects holds twenty times its length as objects). Only complete answers are kept: never an error, an
 * engine's abstention, a degraded reply, nor anything after a failure. A change of the fits empties it.
 *
 * A server with authenticated callers gives each its scope: callers never share answers (one cannot even tell
 * that another asked the same), and a scope past half the cache's entries or bytes loses its own oldest entries,
 * never another's, so one caller cannot flush the others' answers out.
 */
@Injectable()
export class DecisionCache {
  /** Each reply as its JSON text (see above). */
  private readonly cache?: LRUCache<string, string>;
  private readonly scopes = new Map<string, ScopeHoldings>();
  private readonly scopeOf = new Map<string, string>();
  private readonly quota: { entries: number; bytes: number };
  private fits?: number;
  private readonly engines = new WeakMap<System1Provider, number>();
  private nextEngine = 0;

  /** The deployment's store (`[state] url`), which holds the cache for every process; undefined: in-process only. */
  private readonly shared?: SharedState;
  private readonly ttlMs: number;

  constructor(config: LoadedConfig, shared?: SharedState) {
    const { cache_ttl_s, cache_max_entries, cache_max_bytes } = config.gateway;
    if (shared && shared !== IN_PROCESS) this.shared = shared;
    this.ttlMs = cache_ttl_s * 1000;
    this.quota = {
      entries: Math.max(1, Math.floor(cache_max_entries * SCOPE_SHARE)),
      bytes: Math.floor(cache_max_bytes * SCOPE_SHARE),
    };
    if (cache_ttl_s > 0) {
      this.cache = new LRUCache<string, string>({
        max: cache_max_entries,
        maxSize: cache_max_bytes,
        maxEntrySize: Math.floor(cache_max_bytes * ENTRY_SHARE),
        sizeCalculation: (text, key) => sizeOf(key, text),
        ttl: cache_ttl_s * 1000,
        // However an entry leaves (pushed out, expired, replaced, cleared), its scope stops counting it.
        dispose: (_value, key) => this.forget(key),
      });
    }
  }

  get enabled(): boolean {
    return this.cache !== undefined;
  }

  /** Entries kept now (for tests and health). */
  get size(): number {
    return this.cache?.size ?? 0;
  }

  /**
   * The key of `request` to `engine` (asked as `ref`) under the fits in force (`fits`, which empties the cache
   * when it changed); undefined when the cache is off.
   */
  key(
    engine: System1Provider,
    ref: ModelRef,
    request: DecisionRequest,
    fits: number,
    scope?: string,
  ): string | undefined {
    if (!this.cache) return undefined;
    if (this.fits !== fits) {
      this.cache.clear();
      this.fits = fits;
    }
    const { state, questions, images, longContext } = request;
    // Shared by processes, the key names the engine as configured: an instance's number and the fits in force are
    // this process's own (a kept reply is calibrated again at each use, by the fits of the process that reads it).
    if (this.shared) {
      const asked = [
        'shared',
        scope ?? null,
        ref.provider,
        ref.model ?? null,
        state ?? null,
        questions,
        images ?? null,
        longContext === true,
      ];
      return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
    }
    const asked = [
      scope ?? null,
      this.engineId(engine),
      ref.provider,
      ref.model ?? null,
      fits,
      state ?? null,
      questions,
      images ?? null,
      longContext === true,
    ];
    return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
  }

  /** Whether replies are kept in the deployment's store too, where {@link fetchShared} finds them. */
  get sharing(): boolean {
    return this.shared !== undefined && this.cache !== undefined;
  }

  /** The reply another process kept under `key` (a miss, or the store down or late: undefined). */
  async fetchShared(key: string): Promise<CachedReply | undefined> {
    if (!this.shared?.up()) return undefined;
    const text = await this.shared.cached(key);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as CachedReply;
    } catch {
      return undefined; // not ours: an operator's stray write under the prefix is a miss, never a crash
    }
  }

  get(key: string): CachedReply | undefined {
    const text = this.cache?.get(key);
    if (text === undefined) return undefined;
    this.touch(key);
    return JSON.parse(text) as CachedReply;
  }

  /**
   * Keeps `reply` when every question got a readable answer from an engine in good order; for a `scope`, within
   * its share, its own least recently used entries making room.
   */
  keep(key: string, reply: CachedReply, answers: Record<string, QuestionOutcome>, scope?: string): void {
    if (!this.cache || !cacheable(reply, answers)) return;
    // Plain data already (the pipeline copied the engine's reply as JSON), so this cannot throw.
    const text = JSON.stringify(reply);
    const size = sizeOf(key, text);
    if (size > Math.floor(this.cache.maxSize * ENTRY_SHARE)) return;
    // The same bound per entry in the store, its TTL the cache's: the store's maxmemory is the operator's.
    if (this.shared?.up()) this.shared.keep(key, text, this.ttlMs);
    if (scope !== undefined) {
      const holdings = this.scopes.get(scope);
      while (
        holdings &&
        holdings.keys.size > 0 &&
        (holdings.keys.size + 1 > this.quota.entries || holdings.bytes + size > this.quota.bytes)
      ) {
        const oldest = holdings.keys.keys().next().value!;
        this.cache.delete(oldest);
        this.forget(oldest); // already done by dispose, unless the entry had expired unseen
      }
    }
    this.cache.set(key, text);
    if (scope === undefined || !this.cache.has(key)) return;
    const holdings = this.scopes.get(scope) ?? { keys: new Map<string, number>(), bytes: 0 };
    this.scopes.set(scope, holdings);
    holdings.keys.set(key, size);
    holdings.bytes += size;
    this.scopeOf.set(key, scope);
  }

  clear(): void {
    this.cache?.clear();
  }

  /** Entries a scope holds now (for tests). */
  heldBy(scope: string): number {
    return this.scopes.get(scope)?.keys.size ?? 0;
  }

  /** Moves a scope's entry to its most recently used end. */
  private touch(key: string): void {
    const scope = this.scopeOf.get(key);
    const holdings = scope === undefined ? undefined : this.scopes.get(scope);
    const size = holdings?.keys.get(key);
    if (!holdings || size === undefined) return;
    holdings.keys.delete(key);
    holdings.keys.set(key, size);
  }

  private forget(key: string): void {
    const scope = this.scopeOf.get(key);
    if (scope === undefined) return;
    this.scopeOf.delete(key);
    const holdings = this.scopes.get(scope)!;
    holdings.bytes -= holdings.keys.get(key) ?? 0;
    holdings.keys.delete(key);
    if (holdings.keys.size === 0) this.scopes.delete(scope);
  }

  /** The engine instance, so a name registered again for another engine never finds the first one's answers. */
  private engineId(engine: System1Provider): number {
    let id = this.engines.get(engine);
    if (id === undefined) this.engines.set(engine, (id = this.nextEngine++));
    return id;
  }
}

/** The memory a key and its text take: a byte a character, two for text with any beyond Latin-1 (as V8 keeps it). */
function sizeOf(key: string, text: string): number {
  return key.length + (/[\u0100-\uffff]/.test(text) ? 2 : 1) * text.length;
}

function cacheable({ reply }: CachedReply, answers: Record<string, QuestionOutcome>): boolean {
  if (reply.degraded === true) return false;
  if (reply.errors && Object.keys(reply.errors).length > 0) return false;
  return Object.values(answers).every((answer) => answer.status === 'ok');
}
