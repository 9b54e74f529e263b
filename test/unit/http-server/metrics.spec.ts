import { DecisionErrorCode } from '../../../src/decisions/errors/decision-error';
import {
  type DecisionEvent,
  type DecisionObserver,
  decisionStatus,
} from '../../../src/decisions/pipeline/decision-observer';
import type { DecisionOutcome, QuestionOutcome } from '../../../src/decisions/questions/decision.types';
import { GatewayMetrics } from '../../../src/http-server/gateway-metrics';
import { parsePrometheusText, sampleSum, sampleValue } from '../../helpers/prometheus-text';

const choice = (belowThreshold = false): QuestionOutcome => ({
  status: 'ok',
  answer: { type: 'choice', value: 'a', confidence: 0.9, calibrated: false } as never,
  belowThreshold,
});
const failed = (code: DecisionErrorCode): QuestionOutcome => ({ status: 'error', error: { code, message: code } });

function outcome(answers: Record<string, QuestionOutcome>, extra: Partial<DecisionOutcome> = {}): DecisionOutcome {
  return {
    requestId: 'r',
    answers,
    requested: { provider: 'mock' },
    attempts: [],
    durationMs: 12,
    threshold: 0.6,
    ...extra,
  };
}

/** A pipeline stand-in: the metrics observe it as they observe DecisionService. */
function pipeline() {
  const observers = new Set<DecisionObserver>();
  return {
    observe: (observer: DecisionObserver) => (observers.add(observer), () => observers.delete(observer)),
    emit: (event: DecisionEvent) => observers.forEach((observer) => observer(event)),
    get count() {
      return observers.size;
    },
  };
}

describe("a decision's status", () => {
  it("is answered, abstained (below threshold, the engine's own, paused) or error (any question failed)", () => {
    expect(decisionStatus(outcome({ a: choice() }))).toBe('answered');
    expect(decisionStatus(outcome({ a: choice(), b: choice(true) }))).toBe('abstained');
    expect(decisionStatus(outcome({ a: failed(DecisionErrorCode.Abstained) }))).toBe('abstained');
    expect(decisionStatus(outcome({ a: failed(DecisionErrorCode.Paused) }))).toBe('abstained');
    expect(decisionStatus(outcome({ a: choice(true), b: failed(DecisionErrorCode.Timeout) }))).toBe('error');
    expect(decisionStatus(outcome({ a: failed(DecisionErrorCode.ConfigError) }))).toBe('error');
  });
});

describe('the gateway metrics', () => {
  it('count decisions, latency, attempts, abstentions and cooldown skips, in text Prometheus reads', async () => {
    const decisions = pipeline();
    const metrics = new GatewayMetrics(decisions, () => 3);
    const answered = {
      executed: { provider: 'mock' },
      attempts: [
        {
          provider: 'laya',
          outcome: 'skipped' as const,
          latencyMs: 0,
          error: { code: DecisionErrorCode.CoolingDown, message: '' },
        },
        { provider: 'mock', outcome: 'answered' as const, latencyMs: 5 },
      ],
    };
    decisions.emit({ surface: 'system1_decide', outcome: outcome({ a: choice() }, answered) });
    decisions.emit({
      surface: 'system1_decide',
      outcome: outcome({ a: choice(true) }, { ...answered, durationMs: 2500 }),
    });
    decisions.emit({
      surface: 'system1_ask',
      outcome: outcome(
        { a: failed(DecisionErrorCode.Timeout) },
        {
          attempts: [
            {
              provider: 'laya',
              outcome: 'failed',
              latencyMs: 5000,
              error: { code: DecisionErrorCode.Timeout, message: 'late' },
            },
          ],
        },
      ),
    });
    metrics.httpRequestDone('/mcp', 200);

    const text = parsePrometheusText(await metrics.text());
    expect(
      sampleValue(text, 'system1_decisions_total', { surface: 'system1_decide', status: 'answered', provider: 'mock' }),
    ).toBe(1);
    expect(
      sampleValue(text, 'system1_decisions_total', {
        surface: 'system1_decide',
        status: 'abstained',
        provider: 'mock',
      }),
    ).toBe(1);
    expect(
      sampleValue(text, 'system1_decisions_total', { surface: 'system1_ask', status: 'error', provider: 'none' }),
    ).toBe(1);
    expect(sampleValue(text, 'system1_decision_duration_seconds_count', { surface: 'system1_decide' })).toBe(2);
    expect(sampleValue(text, 'system1_decision_duration_seconds_sum', { surface: 'system1_decide' })).toBeCloseTo(
      2.512,
    );
    expect(sampleValue(text, 'system1_decision_duration_seconds_bucket', { surface: 'system1_decide', le: '1' })).toBe(
      1,
    );
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'laya', outcome: 'skipped' })).toBe(2);
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'laya', outcome: 'timeout' })).toBe(1);
    expect(sampleValue(text, 'system1_cooldown_skips_total', { provider: 'laya' })).toBe(2);
    expect(
      sampleValue(text, 'system1_abstentions_total', {
        surface: 'system1_decide',
        provider: 'mock',
        reason: 'below_threshold',
      }),
    ).toBe(1);
    expect(sampleValue(text, 'system1_http_requests_in_flight')).toBe(3);
    expect(sampleValue(text, 'system1_http_requests_total', { route: '/mcp', status: '200' })).toBe(1);
    expect(text.get('process_cpu_user_seconds_total')?.type).toBe('counter');
  });

  it("show each replica of a pool: its calls in flight, its latency's moving average, and how long its calls took", async () => {
    const decisions = pipeline();
    const endpoints = [
      { provider: 'laya', endpoint: 'http://127.0.0.1:8001', inFlight: 4, ewmaMs: 20 },
      { provider: 'laya', endpoint: 'http://127.0.0.1:8002', inFlight: 1 },
    ];
    const metrics = new GatewayMetrics(
      decisions,
      () => 0,
      ['laya'],
      () => endpoints,
    );
    const attempts = [
      {
        provider: 'laya',
        endpoint: 'http://127.0.0.1:8002',
        outcome: 'failed' as const,
        latencyMs: 3,
        error: { code: DecisionErrorCode.Unavailable, message: '' },
      },
      { provider: 'laya', endpoint: 'http://127.0.0.1:8001', outcome: 'answered' as const, latencyMs: 30 },
    ];
    decisions.emit({
      surface: 'system1_ask',
      outcome: outcome({ a: choice() }, { executed: { provider: 'laya' }, attempts }),
    });
    const text = parsePrometheusText(await metrics.text());
    expect(
      sampleValue(text, 'system1_endpoint_requests_in_flight', { provider: 'laya', endpoint: 'http://127.0.0.1:8001' }),
    ).toBe(4);
    expect(
      sampleValue(text, 'system1_endpoint_requests_in_flight', { provider: 'laya', endpoint: 'http://127.0.0.1:8002' }),
    ).toBe(1);
    expect(
      sampleValue(text, 'system1_endpoint_latency_ewma_seconds', {
        provider: 'laya',
        endpoint: 'http://127.0.0.1:8001',
      }),
    ).toBeCloseTo(0.02);
    expect(
      sampleValue(text, 'system1_attempt_duration_seconds_count', {
        provider: 'laya',
        endpoint: 'http://127.0.0.1:8002',
      }),
    ).toBe(1);
    expect(
      sampleValue(text, 'system1_attempt_duration_seconds_sum', {
        provider: 'laya',
        endpoint: 'http://127.0.0.1:8001',
      }),
    ).toBeCloseTo(0.03);
  });

  it('count hedges sent and won, by the replica the second copy went to', async () => {
    const decisions = pipeline();
    const metrics = new GatewayMetrics(decisions, () => 0, ['laya']);
    const [one, two] = ['http://127.0.0.1:8001', 'http://127.0.0.1:8002'];
    const cancelled = { code: DecisionErrorCode.Cancelled, message: 'another replica answered first' };
    const won = [
      { provider: 'laya', endpoint: one, outcome: 'cancelled' as const, latencyMs: 40, error: cancelled },
      { provider: 'laya', endpoint: two, hedge: true as const, outcome: 'hedged' as const, latencyMs: 15 },
    ];
    const lost = [
      { provider: 'laya', endpoint: one, outcome: 'answered' as const, latencyMs: 30 },
      {
        provider: 'laya',
        endpoint: two,
        hedge: true as const,
        outcome: 'cancelled' as const,
        latencyMs: 5,
        error: cancelled,
      },
    ];
    decisions.emit({
      surface: 'system1_ask',
      outcome: outcome({ a: choice() }, { executed: { provider: 'laya' }, attempts: won }),
    });
    decisions.emit({
      surface: 'system1_ask',
      outcome: outcome({ a: choice() }, { executed: { provider: 'laya' }, attempts: lost }),
    });
    const text = parsePrometheusText(await metrics.text());
    expect(sampleValue(text, 'system1_hedges_sent_total', { provider: 'laya', endpoint: two })).toBe(2);
    expect(sampleValue(text, 'system1_hedges_won_total', { provider: 'laya', endpoint: two })).toBe(1);
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'laya', outcome: 'cancelled' })).toBe(2);
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'laya', outcome: 'hedged' })).toBe(1);
  });

  it('count answers from the decision cache, apart from engine calls', async () => {
    const decisions = pipeline();
    const metrics = new GatewayMetrics(decisions, () => 0, ['laya']);
    const attempts = [{ provider: 'laya', outcome: 'cached' as const, latencyMs: 0 }];
    for (let i = 0; i < 3; i++)
      decisions.emit({
        surface: 'library',
        outcome: outcome({ a: choice() }, { executed: { provider: 'laya' }, attempts }),
      });
    const text = parsePrometheusText(await metrics.text());
    expect(sampleValue(text, 'system1_cache_hits_total', { provider: 'laya' })).toBe(3);
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'laya', outcome: 'cached' })).toBe(3);
    expect(text.get('system1_attempt_duration_seconds')?.samples ?? []).toEqual([]);
  });

  it('pools provider names past a cap, so callers cannot grow the series without end', async () => {
    const decisions = pipeline();
    const metrics = new GatewayMetrics(decisions, () => 0);
    for (let i = 0; i < 100; i++) {
      decisions.emit({
        surface: 'system1_ask',
        outcome: outcome(
          { a: failed(DecisionErrorCode.Unavailable) },
          {
            attempts: [
              {
                provider: `made-up-${i}`,
                outcome: 'failed',
                latencyMs: 0,
                error: { code: DecisionErrorCode.Unavailable, message: '' },
              },
            ],
          },
        ),
      });
    }
    const text = parsePrometheusText(await metrics.text());
    const series = text.get('system1_attempts_total')!.samples;
    expect(series.length).toBe(65);
    expect(sampleValue(text, 'system1_attempts_total', { provider: 'other' })).toBe(36);
    expect(sampleSum(text, 'system1_attempts_total')).toBe(100);
  });

  it('stops observing once closed', () => {
    const decisions = pipeline();
    const metrics = new GatewayMetrics(decisions, () => 0);
    expect(decisions.count).toBe(1);
    metrics.close();
    expect(decisions.count).toBe(0);
  });
});
