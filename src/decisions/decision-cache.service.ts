import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import type { DecisionRequest, QuestionOutcome } from './decision.types';
import type { StrayAnswers } from './engine-reply';
import type { EvaluateReply, System1Provider } from './provider.interface';
import type { ModelRef } from './question.types';

/** An engine's readable reply as the pipeline keeps it: read again, calibrated and thresholded at each use. */
export interface CachedReply {
  reply: EvaluateReply;
  stray: StrayAnswers;
  model: string | null | undefined;
  notes: string[];
}

/** The largest share of the cache's bytes one entry may take: a few huge requests cannot push out the rest. */
const ENTRY_SHARE = 1 / 16;

/**
 * Recent engine replies (`[gateway] cache_ttl_s`, off by default), so an identical request is answered without
 * an engine call. The key is a SHA-256 of everything the reply depends on: the engine (the configured instance,
 * or the registration), the model, the fits in force, the state, the questions, images and long context; a
 * request that differs in any of them is a different key, so no caller can read the answer to another
 * request. Bounded by entries and by bytes (`cache_max_entries`, `cache_max_bytes`, least recently used out
 * first, one entry at most a sixteenth of the bytes). Only complete answers are kept: never an error, an
 * engine's abstention, a degraded reply, nor anything after a failure. A change of the fits empties it.
 */
@Injectable()
export class DecisionCache {
  private readonly cache?: LRUCache<string, CachedReply>;
  private fits?: number;
  private readonly engines = new WeakMap<System1Provider, number>();
  private nextEngine = 0;

  constructor(@Inject(system1Config.KEY) config: LoadedConfig) {
    const { cache_ttl_s, cache_max_entries, cache_max_bytes } = config.gateway;
    if (cache_ttl_s > 0) {
      this.cache = new LRUCache<string, CachedReply>({
        max: cache_max_entries,
        maxSize: cache_max_bytes,
        maxEntrySize: Math.floor(cache_max_bytes * ENTRY_SHARE),
        sizeCalculation: (value, key) => key.length + Buffer.byteLength(JSON.stringify(value)),
        ttl: cache_ttl_s * 1000,
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
  key(engine: System1Provider, ref: ModelRef, request: DecisionRequest, fits: number): string | undefined {
    if (!this.cache) return undefined;
    if (this.fits !== fits) {
      this.cache.clear();
      this.fits = fits;
    }
    const { state, questions, images, longContext } = request;
    const asked = [this.engineId(engine), ref.provider, ref.model ?? null, fits, state ?? null, questions, images ?? null, longContext === true];
    return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
  }

  get(key: string): CachedReply | undefined {
    return this.cache?.get(key);
  }

  /** Keeps `reply` when every question got a readable answer from an engine in good order. */
  keep(key: string, reply: CachedReply, answers: Record<string, QuestionOutcome>): void {
    if (!this.cache || !cacheable(reply, answers)) return;
    this.cache.set(key, reply);
  }

  clear(): void {
    this.cache?.clear();
  }

  /** The engine instance, so a name registered again for another engine never finds the first one's answers. */
  private engineId(engine: System1Provider): number {
    let id = this.engines.get(engine);
    if (id === undefined) this.engines.set(engine, (id = this.nextEngine++));
    return id;
  }
}

function cacheable({ reply }: CachedReply, answers: Record<string, QuestionOutcome>): boolean {
  if (reply.degraded === true) return false;
  if (reply.errors && Object.keys(reply.errors).length > 0) return false;
  return Object.values(answers).every((answer) => answer.status === 'ok');
}
