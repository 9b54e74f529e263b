/**
 * The provider cooldown through the whole in-process gateway: system1_decide's DecideService and
 * system1_health's HealthService over DecisionService and CooldownService, with mock engines that hang.
 */
import type { TestingModule } from '@nestjs/testing';
import { CooldownService, cooldownKey } from '../../../src/decisions/pools/cooldown.service';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import type { DecideResponseDto } from '../../../src/mcp/dto/decide-response.dto';
import { LayaFake } from '../../fakes/laya.fake';
import { gatewayApp } from '../../helpers/gateway-app';

const SLOW_FIRST = (gateway = '') =>
  `[gateway]\nprovider = "slow"\nfallback = ["mock"]\ntimeout_s = 0.2\n${gateway}\n[providers.slow]\ntype = "mock"\ndelay_s = 10\n`;

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const COOLING = /^cooling down: \d+ s left$/;

const apps: TestingModule[] = [];
async function app(toml: string): Promise<TestingModule> {
  const module = await gatewayApp({ toml });
  apps.push(module);
  return module;
}
afterEach(async () => {
  await Promise.all(apps.splice(0).map((module) => module.close()));
});

async function decideMany(decide: DecideService, count: number): Promise<DecideResponseDto[]> {
  const replies: DecideResponseDto[] = [];
  for (let i = 0; i < count; i++) replies.push(await decide.decide({ ...ASK, request_id: `cool-${i}` }));
  return replies;
}

describe('a primary that times out', () => {
  it('is tried once, then skipped at no cost while it cools, for 100 decisions in a row', async () => {
    const decide = (await app(SLOW_FIRST())).get(DecideService);
    const replies = await decideMany(decide, 100);

    for (const reply of replies)
      expect(reply).toMatchObject({ status: 'decided', decision: 'rerun', provider: 'mock', error: null });
    const [first, ...rest] = replies;
    expect(first.attempts).toEqual([
      { provider: 'slow', outcome: 'timeout', latency_ms: expect.any(Number), detail: expect.any(String) },
      { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
    ]);
    expect(rest).toHaveLength(99);
    for (const reply of rest) {
      expect(reply.attempts).toEqual([
        { provider: 'slow', outcome: 'error', latency_ms: 0, detail: expect.stringMatching(COOLING) },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
    }
    const timeouts = replies
      .flatMap((reply) => reply.attempts)
      .filter((attempt) => attempt.provider === 'slow' && attempt.outcome === 'timeout');
    expect(timeouts).toHaveLength(1);
  });

  it('names what is left of the window in whole seconds', async () => {
    const decide = (await app(SLOW_FIRST())).get(DecideService);
    const [, second] = await decideMany(decide, 2);
    expect(second.attempts[0].detail).toMatch(COOLING);
    const seconds = Number(/(\d+) s left/.exec(second.attempts[0].detail!)![1]);
    // Rounded up, and never more than the window (no absolute timing: just the bounds of the window).
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(30);
  });

  it('is asked every time with cooldown_s = 0', async () => {
    const decide = (await app(SLOW_FIRST('cooldown_s = 0'))).get(DecideService);
    const replies = await decideMany(decide, 2);
    for (const reply of replies) {
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(reply.attempts).toEqual([
        { provider: 'slow', outcome: 'timeout', latency_ms: expect.any(Number), detail: expect.any(String) },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
    }
  });

  it('fails the decision without waiting when the only engine is cooling', async () => {
    const decide = (
      await app('[gateway]\nprovider = "slow"\ntimeout_s = 0.2\n[providers.slow]\ntype = "mock"\ndelay_s = 10\n')
    ).get(DecideService);
    const [first, second] = await decideMany(decide, 2);
    expect(first).toMatchObject({ status: 'error', error: { code: 'provider_timeout' } });
    expect(second).toMatchObject({
      status: 'error',
      error: { code: 'provider_error', message: expect.stringContaining('cooling down') },
    });
    expect(second.attempts).toEqual([
      { provider: 'slow', outcome: 'error', latency_ms: 0, detail: expect.stringMatching(COOLING) },
    ]);
  });
});

describe('system1_health and a cooling provider', () => {
  it('shows a failing probe of a cooling provider with what is left of its cooldown', async () => {
    // Three errors in a row cool `broken`; its probe fails too, so the cooldown stands and is shown.
    const gateway = await app(
      '[gateway]\nprovider = "broken"\nfallback = ["mock"]\n[providers.broken]\ntype = "mock"\nfail = "engine down"\n',
    );
    const replies = await decideMany(gateway.get(DecideService), 4);
    expect(replies.map((reply) => reply.attempts[0].outcome)).toEqual(['error', 'error', 'error', 'error']);
    expect(replies[3].attempts[0].detail).toMatch(COOLING);

    const report = await gateway.get(HealthService).health();
    const broken = report.providers.find((probe) => probe.name === 'broken');
    expect(broken).toMatchObject({ ok: false, detail: expect.stringContaining('cooling down') });
    expect(broken!.detail).toMatch(/^mock set to fail: engine down; cooling down: \d+ s left$/);
    expect(report.status).toBe('degraded');
    // A failing probe does not end the cooldown.
    const [after] = await decideMany(gateway.get(DecideService), 1);
    expect(after.attempts[0].detail).toMatch(COOLING);
  });

  // An answering health check does not prove that decisions answer: only a decision that succeeds ends a window.
  it('after slow timed out: its probe succeeds, yet it shows the cooldown and keeps it, so the next decision skips slow', async () => {
    const gateway = await app(SLOW_FIRST());
    const decide = gateway.get(DecideService);
    const [first, second] = await decideMany(decide, 2);
    expect(first.attempts[0].outcome).toBe('timeout');
    expect(second.attempts[0].detail).toMatch(COOLING);

    const report = await gateway.get(HealthService).health();
    const slow = report.providers.find((probe) => probe.name === 'slow')!;
    expect(slow.ok).toBe(true);
    expect(slow.detail).toMatch(
      /^mock provider: deterministic stand-in, no engine behind it; cooling down: \d+ s left$/,
    );

    const [third] = await decideMany(decide, 1);
    expect(third.attempts.map((attempt) => [attempt.provider, attempt.outcome])).toEqual([
      ['slow', 'error'],
      ['mock', 'ok'],
    ]);
    expect(third.attempts[0].detail).toMatch(COOLING);
  });

  it('a laya whose /health answers while its decisions hang: health shows it cooling, and no decision waits on it again', async () => {
    const fake = new LayaFake();
    const { origin } = await fake.start();
    try {
      fake.fault = 'hang'; // decision route only; /health still answers
      const gateway = await app(
        `[gateway]\nprovider = "laya"\nfallback = ["mock"]\ntimeout_s = 0.2\n[providers.laya]\nendpoint = "${origin}"\n`,
      );
      const decide = gateway.get(DecideService);
      const [first, second] = await decideMany(decide, 2);
      expect(first.attempts[0]).toMatchObject({ provider: 'laya', outcome: 'timeout' });
      expect(second.attempts[0]).toMatchObject({
        provider: 'laya',
        outcome: 'error',
        latency_ms: 0,
        detail: expect.stringMatching(COOLING),
      });
      expect(fake.requestsTo('/v1/systemone')).toHaveLength(1);

      for (let i = 0; i < 3; i++) {
        const laya = (await gateway.get(HealthService).health()).providers.find((probe) => probe.name === 'laya')!;
        expect(laya.ok).toBe(true);
        expect(laya.detail).toMatch(/; cooling down: \d+ s left$/);
      }

      const [third] = await decideMany(decide, 1);
      expect(third.attempts[0]).toMatchObject({
        provider: 'laya',
        outcome: 'error',
        latency_ms: 0,
        detail: expect.stringMatching(COOLING),
      });
      expect(third).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(fake.requestsTo('/v1/systemone')).toHaveLength(1);
    } finally {
      await fake.stop();
    }
  });
});

describe('a refused connection', () => {
  it('does not start a cooldown on its own: the next decision asks the engine again', async () => {
    const decide = (
      await app(
        '[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoint = "http://127.0.0.1:9"\n',
      )
    ).get(DecideService);
    const replies = await decideMany(decide, 2);
    for (const reply of replies) {
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(reply.attempts).toEqual([
        {
          provider: 'laya',
          outcome: 'error',
          latency_ms: expect.any(Number),
          detail: expect.stringContaining('connection refused'),
        },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
      expect(reply.attempts[0].detail).not.toMatch(/cooling down/);
    }
  });

  it('cools the engine at the third refusal in a row', async () => {
    const decide = (
      await app(
        '[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoint = "http://127.0.0.1:9"\n',
      )
    ).get(DecideService);
    const replies = await decideMany(decide, 4);
    for (const reply of replies.slice(0, 3)) {
      expect(reply.attempts[0]).toMatchObject({
        provider: 'laya',
        outcome: 'error',
        detail: expect.stringContaining('connection refused'),
      });
    }
    expect(replies[3].attempts[0]).toEqual({
      provider: 'laya',
      outcome: 'error',
      latency_ms: 0,
      detail: expect.stringMatching(COOLING),
    });
  });
});

// Two bugs these tests found and that are fixed: refusals cooled a healthy engine, and every call in flight
// retried it after the window.
describe('what does not cool, and the one trial after a window', () => {
  // decision.service.ts calls cooldown.failed() for every failed attempt, including the gateway's own
  // refusals (limit_exceeded, unsupported) that never reach the engine; cooldown.service.ts excludes only
  // 'cancelled'. Three over-limit requests in a row cool an engine that is perfectly well.
  it('a refusal of the gateway itself (too many options) never cools the engine', async () => {
    const decide = (
      await app(
        '[gateway]\nprovider = "small"\nfallback = ["mock"]\n[providers.small]\ntype = "mock"\nmax_options = 2\n',
      )
    ).get(DecideService);
    for (let i = 0; i < 3; i++) {
      const reply = await decide.decide({ question: 'Which one?', options: ['a', 'b', 'c'] });
      expect(reply.attempts[0]).toMatchObject({
        provider: 'small',
        outcome: 'error',
        detail: expect.stringMatching(/^refused: /),
      });
    }
    const fits = await decide.decide({ question: 'Which one?', options: ['a', 'b'] });
    expect(fits).toMatchObject({ status: 'decided', provider: 'small' });
    expect(fits.attempts).toEqual([{ provider: 'small', outcome: 'ok', latency_ms: expect.any(Number), detail: null }]);
  });

  it('a model the call names that the provider cannot use is never sent, and never cools that provider or model', async () => {
    const gateway = await app('[gateway]\nprovider = "mock"\n');
    const decisions = gateway.get(DecisionService);
    const chosen = { provider: 'mock', model: 'no-such-checkpoint' };
    for (let i = 0; i < 4; i++) {
      const { answers, attempts } = await decisions.decide({
        questions: { q: { type: 'choice', instructions: 'Which?', criteria: { a: null, b: null } } },
        model: chosen,
      });
      expect(answers.q).toMatchObject({
        status: 'error',
        error: { code: 'unavailable', message: expect.stringContaining('is not usable') },
      });
      expect(attempts).toHaveLength(1);
    }
    const cooldown = gateway.get(CooldownService);
    expect([cooldown.peekMs(cooldownKey(chosen)), cooldown.peekMs(cooldownKey({ provider: 'mock' }))]).toEqual([0, 0]);
  });

  // cooldown.service.ts: "once the window is over one call tries it again". remainingMs() returns 0 to
  // every caller once `until` has passed and nothing marks a trial as under way, so every call in flight
  // at that moment waits the whole timeout on the engine that hung.
  it('after the window, one call tries the engine again, not every call in flight', async () => {
    const gateway = await app(SLOW_FIRST());
    const decide = gateway.get(DecideService);
    // The cooldown's clock, moved by the test (no real wait for the window to pass).
    let clock = 1_000_000;
    jest.spyOn(gateway.get(CooldownService) as unknown as { now(): number }, 'now').mockImplementation(() => clock);
    const [first] = await decideMany(decide, 1);
    expect(first.attempts[0].outcome).toBe('timeout');
    const [cooling] = await decideMany(decide, 1);
    expect(cooling.attempts[0].detail).toMatch(COOLING);
    clock += 30_000; // past the first window (an eighth of the default 30 s)
    const replies = await Promise.all([1, 2, 3, 4, 5].map((i) => decide.decide({ ...ASK, request_id: `trial-${i}` })));
    const outcomes = replies.map((reply) => reply.attempts[0].outcome);
    expect(outcomes.filter((outcome) => outcome === 'timeout')).toHaveLength(1);
  });
});
