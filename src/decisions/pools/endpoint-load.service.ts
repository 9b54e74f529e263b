import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { PoolMember } from '../registry/engine-pool';

/**
 * Weight of the newest latency in an endpoint's moving average: about the last ten answers count, so a
 * replica that slows down loses ties within a few calls, and one that recovers wins them back as quickly.
 */
export const LATENCY_EWMA_WEIGHT = 0.2;
/**
 * An endpoint's average halves for every this long without a new sample: at low load the balancer sends every
 * tie to the fastest replica, and the others' figures would otherwise never change; a forgotten one wins a tie
 * again, and its next answer says how it is now.
 */
export const LATENCY_HALF_LIFE_MS = 5_000;
/** Latencies a pool keeps for its recent percentiles (hedge_after_ms = "auto"). */
export const RECENT_LATENCIES = 256;
/** Fewer samples than this give no percentile: too few to say what is slow. */
export const MIN_PERCENTILE_SAMPLES = 20;

/** How a copy of a request sent to an endpoint ended, as far as its latency says something. */
export type CallEnd =
  /** An answer (readable or not): its latency is a sample. */
  | 'answered'
  /** No answer within the attempt's deadline, or cancelled as the loser of a hedge: the time is a lower bound. */
  | 'slow'
  /** Any other end (an error, the caller's cancel): no latency sample. */
  | 'other';

/** One endpoint's load, as the balancer and the metrics read it. */
export interface EndpointStats {
  provider: string;
  /** '' for a provider's single engine. */
  endpoint: string;
  inFlight: number;
  /** Moving average of its latencies (ms), decayed while it gets no samples; undefined before its first one. */
  ewmaMs?: number;
}

interface EndpointRecord extends EndpointStats {
  /** When its average was last updated (`performance.now()`). */
  sampledAt: number;
}

/** A pool's recent latencies, oldest overwritten first. */
class LatencyWindow {
  private readonly samples: number[] = [];
  private next = 0;

  add(ms: number): void {
    if (this.samples.length < RECENT_LATENCIES) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % RECENT_LATENCIES;
  }

  percentile(p: number): number | undefined {
    if (this.samples.length < MIN_PERCENTILE_SAMPLES) return undefined;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }
}

/**
 * Requests in flight and recent latency per endpoint, and each pool's recent latencies: what the balancer
 * picks by, what hedging's "auto" delay is read from, and what /metrics shows. Keyed by provider and endpoint
 * (not by model: a model a caller chose runs on the same replica, and loads it the same), so the keys are
 * those the config names, never a caller's.
 */
@Injectable()
export class EndpointLoad {
  private readonly endpoints = new Map<string, Map<string, EndpointRecord>>();
  private readonly pools = new Map<string, LatencyWindow>();

  /** Counts a copy of a request going to `member`; the returned function records how it ended (once). */
  start(provider: string, member: PoolMember): (end: CallEnd, latencyMs: number) => void {
    const stats = this.stats(provider, member);
    stats.inFlight++;
    let ended = false;
    return (end, latencyMs) => {
      if (ended) return;
      ended = true;
      stats.inFlight--;
      if (end === 'other') return;
      const average = this.decayed(stats);
      stats.ewmaMs = average === undefined ? latencyMs : average + LATENCY_EWMA_WEIGHT * (latencyMs - average);
      stats.sampledAt = this.now();
      this.window(provider).add(latencyMs);
    };
  }

  /** `member`'s load now. */
  of(provider: string, member: PoolMember): Readonly<EndpointStats> {
    return this.view(this.stats(provider, member));
  }

  /** The `p` quantile (0.95 for p95) of the pool's recent latencies; undefined until it has enough of them. */
  percentile(provider: string, p: number): number | undefined {
    return this.pools.get(provider)?.percentile(p);
  }

  /** Every endpoint seen so far, for the metrics. */
  all(): readonly Readonly<EndpointStats>[] {
    return [...this.endpoints.values()].flatMap((byUrl) => [...byUrl.values()].map((stats) => this.view(stats)));
  }

  /** The clock; tests move it. */
  protected now(): number {
    return performance.now();
  }

  private view({ provider, endpoint, inFlight, ...stats }: EndpointRecord): EndpointStats {
    const ewmaMs = this.decayed({ ...stats, provider, endpoint, inFlight });
    return { provider, endpoint, inFlight, ...(ewmaMs !== undefined && { ewmaMs }) };
  }

  private decayed(stats: EndpointRecord): number | undefined {
    if (stats.ewmaMs === undefined) return undefined;
    return stats.ewmaMs * 0.5 ** (Math.max(0, this.now() - stats.sampledAt) / LATENCY_HALF_LIFE_MS);
  }

  private stats(provider: string, member: PoolMember): EndpointRecord {
    // By provider, then URL: a decision asks this two or three times, and a key text built each time showed.
    let byUrl = this.endpoints.get(provider);
    if (!byUrl) this.endpoints.set(provider, (byUrl = new Map<string, EndpointRecord>()));
    let stats = byUrl.get(member.url);
    if (!stats) byUrl.set(member.url, (stats = { provider, endpoint: member.url, inFlight: 0, sampledAt: this.now() }));
    return stats;
  }

  private window(provider: string): LatencyWindow {
    let window = this.pools.get(provider);
    if (!window) this.pools.set(provider, (window = new LatencyWindow()));
    return window;
  }
}
