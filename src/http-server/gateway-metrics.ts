import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { abstentionOf, type DecisionEvent, decisionStatus } from '../decisions/pipeline/decision-observer';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { EndpointStats } from '../decisions/pools/endpoint-load.service';

/** Seconds: one engine call, from a loopback engine's milliseconds to a hosted model's seconds. */
const ATTEMPT_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds: from a cached answer to a slow engine's whole fallback chain. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The most distinct values a label takes before the rest are counted as `other`. */
const MAX_LABEL_VALUES = 64;
const MAX_LABEL_CHARS = 64;

/**
 * A label's values, capped: a provider name can come from a caller (system1_ask's `model`), and every new
 * value is a new series Prometheus keeps, so past the cap they are pooled under `other`. The names the
 * config gives are always their own value: invented names cannot push them into `other`.
 */
class CappedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly reserved: ReadonlySet<string> = new Set()) {}

  value(raw: string): string {
    if (this.reserved.has(raw)) return raw;
    const text = raw.length > MAX_LABEL_CHARS ? raw.slice(0, MAX_LABEL_CHARS) : raw;
    if (this.seen.has(text)) return text;
    if (this.seen.size >= MAX_LABEL_VALUES) return 'other';
    this.seen.add(text);
    return text;
  }
}

/**
 * What a team watches on a shared gateway, in Prometheus' text format: every decision of the one pipeline
 * (by surface, status and provider, with its latency), every engine attempt (by outcome), abstentions,
 * cooldown skips, and the HTTP requests in flight and answered. One registry per server, never the global
 * one, so two servers in one process (tests) count apart.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly providers: CappedLabel;
  private readonly surfaces = new CappedLabel();
  private readonly unsubscribe: () => void;

  private readonly decisions = new Counter({
    name: 'system1_decisions_total',
    help:
      'Decisions made by the pipeline, by surface, status (answered, abstained, error), ' +
      'the provider that answered (none when none did) and the caller (named in the config, else other).',
    labelNames: ['surface', 'status', 'provider', 'caller'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'system1_decision_duration_seconds',
    help: 'Time the pipeline took per decision, fallbacks included, by surface.',
    labelNames: ['surface'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'system1_attempts_total',
    help:
      'Engine attempts, by provider and outcome ' +
      '(answered, skipped while cooling down, or the failure: timeout, unavailable, ...).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly abstentions = new Counter({
    name: 'system1_abstentions_total',
    help:
      'Questions not decided though nothing failed, by surface, provider and reason ' +
      '(below_threshold, engine_abstained, paused).',
    labelNames: ['surface', 'provider', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly cooldownSkips = new Counter({
    name: 'system1_cooldown_skips_total',
    help:
      'Attempts skipped because the provider was cooling down after failures, ' +
      'by provider (cooldowns are per replica).',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  private readonly attemptDuration = new Histogram({
    name: 'system1_attempt_duration_seconds',
    help:
      'Time each engine call took, by provider and endpoint (the replica of a pool; ' +
      'empty for a provider with one endpoint).',
    labelNames: ['provider', 'endpoint'] as const,
    buckets: ATTEMPT_BUCKETS,
    registers: [this.registry],
  });
  private readonly hedgesSent = new Counter({
    name: 'system1_hedges_sent_total',
    help:
      'Second copies of a request sent to another replica of a pool after hedge_after_ms, ' +
      'by provider and the replica it went to.',
    labelNames: ['provider', 'endpoint'] as const,
    registers: [this.registry],
  });
  private readonly hedgesWon = new Counter({
    name: 'system1_hedges_won_total',
    help: 'Hedged copies that answered before the first copy (which was then cancelled), by provider and replica.',
    labelNames: ['provider', 'endpoint'] as const,
    registers: [this.registry],
  });
  private readonly cacheHits = new Counter({
    name: 'system1_cache_hits_total',
    help:
      'Decisions answered from the decision cache (an identical request within cache_ttl_s), ' +
      'no engine asked, by provider.',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  private readonly httpRequests = new Counter({
    name: 'system1_http_requests_total',
    help: 'HTTP requests answered, by route (/mcp, /healthz, /readyz, /metrics, other) and status code.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  /**
   * `inFlight`: the server's own count of MCP requests being answered, read at each scrape; `providers`: the
   * names the config can use (chain, tables, built-ins), each always counted under its own label.
   */
  /** `system1_state_store_up`, with a store set (`[state] url`): 1 while it answers, 0 while this process keeps its own state. */
  watchStateStore(up: () => boolean): void {
    new Gauge({
      name: 'system1_state_store_up',
      help: 'Whether the shared state store answers (1) or this replica keeps its own limits, cooldowns and cache (0).',
      registers: [this.registry],
      collect() {
        this.set(up() ? 1 : 0);
      },
    });
  }

  constructor(
    decisions: Pick<DecisionService, 'observe'>,
    inFlight: () => number,
    providers: readonly string[] = [],
    endpoints: () => readonly Readonly<EndpointStats>[] = () => [],
    /** A caller's label value, bounded by the configured callers (see CallerAccess.label). */
    private readonly callerLabel: (caller: string) => string = () => 'other',
  ) {
    this.providers = new CappedLabel(new Set(providers));
    new Gauge({
      name: 'system1_http_requests_in_flight',
      help: 'MCP requests received and not yet answered.',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    const label = (provider: string) => this.providers.value(provider);
    new Gauge({
      name: 'system1_endpoint_requests_in_flight',
      help:
        'Engine calls under way, by provider and endpoint (each replica of a pool; ' +
        'empty for a provider with one endpoint), hedged copies included.',
      labelNames: ['provider', 'endpoint'] as const,
      registers: [this.registry],
      collect() {
        for (const stats of endpoints())
          this.set({ provider: label(stats.provider), endpoint: stats.endpoint }, stats.inFlight);
      },
    });
    new Gauge({
      name: 'system1_endpoint_latency_ewma_seconds',
      help: "Moving average of each endpoint's latency, what the balancer breaks ties by.",
      labelNames: ['provider', 'endpoint'] as const,
      registers: [this.registry],
      collect() {
        for (const stats of endpoints())
          if (stats.ewmaMs !== undefined)
            this.set({ provider: label(stats.provider), endpoint: stats.endpoint }, stats.ewmaMs / 1000);
      },
    });
    collectDefaultMetrics({ register: this.registry });
    this.unsubscribe = decisions.observe((event) => this.record(event));
  }

  private record({ surface: rawSurface, outcome, caller }: DecisionEvent): void {
    const surface = this.surfaces.value(rawSurface);
    const provider = outcome.executed ? this.providers.value(outcome.executed.provider) : 'none';
    this.decisions.inc({
      surface,
      status: decisionStatus(outcome),
      provider,
      caller: caller === undefined ? 'none' : this.callerLabel(caller),
    });
    this.duration.observe({ surface }, outcome.durationMs / 1000);
    for (const attempt of outcome.attempts) {
      const name = this.providers.value(attempt.provider);
      this.attempts.inc({
        provider: name,
        outcome: attempt.outcome === 'failed' ? (attempt.error?.code ?? 'failed') : attempt.outcome,
      });
      if (attempt.outcome === 'skipped') this.cooldownSkips.inc({ provider: name });
      else if (attempt.outcome === 'cached') this.cacheHits.inc({ provider: name });
      else this.attemptDuration.observe({ provider: name, endpoint: attempt.endpoint ?? '' }, attempt.latencyMs / 1000);
      if (attempt.hedge) this.hedgesSent.inc({ provider: name, endpoint: attempt.endpoint ?? '' });
      if (attempt.outcome === 'hedged') this.hedgesWon.inc({ provider: name, endpoint: attempt.endpoint ?? '' });
    }
    for (const answer of Object.values(outcome.answers)) {
      const reason = abstentionOf(answer);
      if (reason) this.abstentions.inc({ surface, provider, reason });
    }
  }

  httpRequestDone(route: string, status: number): void {
    this.httpRequests.inc({ route, status: String(status) });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops counting decisions (the server is closing). */
  close(): void {
    this.unsubscribe();
  }
}
