/**
 * What users of other routers report going wrong with cooldowns, held through the whole in-process pipeline:
 * the one trial after a window is never lost to a call that ends without a verdict on the engine (the gateway
 * refused the request, the caller cancelled), a caller's cancel is never counted against the engine, and with
 * `wait_for_recovery` a call waits for a cooling engine to come back within its deadline instead of failing.
 * (The backoff itself is held in cooldown.spec.ts, on a clock the test moves.)
 */
import type { TestingModule } from '@nestjs/testing';
import { CooldownService } from '../../../src/decisions/pools/cooldown.service';
import { ProviderError } from '../../../src/decisions/errors/decision-error';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import type { DecisionOutcome, DecisionRequest } from '../../../src/decisions/questions/decision.types';
import { McpServerService } from '../../../src/mcp/mcp-server.service';
import { LayaFake } from '../../fakes/laya.fake';
import { eventually } from '../../helpers/eventually';
import { gatewayApp } from '../../helpers/gateway-app';
import { answer, ScriptedEngine, ScriptedEngineModule } from '../../helpers/scripted.provider';

type Behaviour = 'fail' | 'answer' | 'hang';

let behaviour: Behaviour = 'answer';
let engineCalls = 0;
const apps: TestingModule[] = [];

beforeEach(() => {
  behaviour = 'answer';
  engineCalls = 0;
  ScriptedEngine.script = (batch, { signal }) => {
    engineCalls++;
    if (behaviour === 'fail') return Promise.reject(new ProviderError('engine down'));
    if (behaviour === 'hang')
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    return Promise.resolve(answer(batch, { decision: batch.questions[0].options[0], confidence: 0.9 }));
  };
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  ScriptedEngine.script = async () => ({});
});

async function gateway(
  gatewayKeys = '',
): Promise<{ decisions: DecisionService; cooldown: CooldownService; app: TestingModule }> {
  const app = await gatewayApp({
    toml: `[gateway]\nprovider = "scripted"\n${gatewayKeys}\n`,
    imports: [ScriptedEngineModule],
  });
  apps.push(app);
  return { app, decisions: app.get(DecisionService), cooldown: app.get(CooldownService) };
}

/** The cooldown's clock, moved by the test: no real wait for a window to pass. */
function movableClock(cooldown: CooldownService): { advance(ms: number): void } {
  let now = 1_000_000;
  jest.spyOn(cooldown as unknown as { now(): number }, 'now').mockImplementation(() => now);
  return { advance: (ms) => (now += ms) };
}

const QUESTION: DecisionRequest = {
  questions: { q: { type: 'choice', instructions: 'Rerun or block?', criteria: { rerun: null, block: null } } },
};

/** Three errors in a row: the engine cools for its first window. */
async function coolWithErrors(decisions: DecisionService): Promise<void> {
  behaviour = 'fail';
  const noWait = { waitForRecovery: false };
  for (let i = 0; i < 3; i++) await decisions.decide(QUESTION, noWait);
  const skipped = await decisions.decide(QUESTION, noWait);
  expect(skipped.attempts).toEqual([expect.objectContaining({ outcome: 'skipped' })]);
}

const outcomes = (outcome: DecisionOutcome) => outcome.attempts.map((attempt) => attempt.outcome);

describe('the trial after a window', () => {
  it('is handed back when the gateway refuses the trial call before sending it: the next call is the trial, not skipped', async () => {
    const { decisions, cooldown } = await gateway();
    const clock = movableClock(cooldown);
    await coolWithErrors(decisions);
    clock.advance(cooldown.windowMs(1));

    behaviour = 'answer';
    const calls = engineCalls;
    // The scripted engine offers no extended context: this call is refused before anything is sent.
    const refused = await decisions.decide({ ...QUESTION, longContext: true });
    expect(refused.answers.q).toMatchObject({ status: 'error', error: { code: 'unsupported' } });
    expect(engineCalls).toBe(calls);

    // Today's main keeps the trial claimed by the refused call, and skips the engine for a whole window more.
    const next = await decisions.decide(QUESTION);
    expect(outcomes(next)).toEqual(['answered']);
    expect(cooldown.state('scripted').state).toBe('ok');
  });

  it('is handed back when the caller cancels the trial call: the engine is asked again at once, and the cancel cools nothing', async () => {
    const { decisions, cooldown } = await gateway();
    const clock = movableClock(cooldown);
    await coolWithErrors(decisions);
    clock.advance(cooldown.windowMs(1));

    behaviour = 'hang';
    const caller = new AbortController();
    const calls = engineCalls;
    const trial = decisions.decide({ ...QUESTION, signal: caller.signal });
    await eventually(() => engineCalls > calls, 'the trial call reached the engine');
    caller.abort();
    expect((await trial).answers.q).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    // Still at the first step of backoff: the cancel was not a failure.
    expect(cooldown.state('scripted')).toMatchObject({ state: 'trial', level: 1 });

    behaviour = 'answer';
    const next = await decisions.decide(QUESTION);
    expect(outcomes(next)).toEqual(['answered']);
    expect(cooldown.state('scripted').state).toBe('ok');
  });
});

describe("a caller's cancel", () => {
  // Today's main drops system1_decide's cancel signal: the engine is left working, and its timeout then cools it.
  it("over MCP ends system1_decide's engine call (its connection closes) and never counts against the engine", async () => {
    const fake = new LayaFake();
    const { origin } = await fake.start();
    try {
      fake.fault = 'hang';
      const app = await gatewayApp({
        toml: `[gateway]\nprovider = "laya"\ntimeout_s = 30\n[providers.laya]\nendpoint = "${origin}"\n`,
      });
      apps.push(app);
      const server = app.get(McpServerService);
      const cooldown = app.get(CooldownService);
      for (let i = 1; i <= 3; i++) {
        const client = new AbortController();
        const call = server.callTool(
          'system1_decide',
          { question: 'Rerun or block?', options: ['rerun', 'block'] },
          client.signal,
        )!;
        await eventually(() => fake.requestsTo('/v1/systemone').length === i, 'the engine received the decision');
        client.abort();
        await call;
        await eventually(() => fake.abandoned === i, 'the engine saw the connection close');
      }
      expect(cooldown.state('laya')).toEqual({ state: 'ok', remainingMs: 0, failures: 0, level: 0 });
    } finally {
      await fake.stop();
    }
  });
});

describe('wait_for_recovery', () => {
  it('off (the default): a call fails at once while the only engine cools', async () => {
    const { decisions } = await gateway('cooldown_s = 30');
    await coolWithErrors(decisions);
    behaviour = 'answer';
    const calls = engineCalls;
    const outcome = await decisions.decide(QUESTION);
    expect(outcome.answers.q).toMatchObject({ status: 'error', error: { code: 'cooling_down' } });
    expect(engineCalls).toBe(calls);
  });

  it('on: a call waits for the window to end (well within its deadline) and is answered by the engine', async () => {
    // A first window of 0.1 s against a 30 s attempt timeout: the wait fits the call's deadline.
    const { decisions, cooldown } = await gateway('cooldown_s = 0.8\ntimeout_s = 30\nwait_for_recovery = true');
    await coolWithErrors(decisions);
    behaviour = 'answer';
    const outcome = await decisions.decide(QUESTION);
    expect(outcome.answers.q).toMatchObject({ status: 'ok' });
    expect(outcomes(outcome)).toEqual(['answered']);
    expect(cooldown.state('scripted').state).toBe('ok');
  });

  it('on: calls waiting together let one take the trial; its answer lets the others through', async () => {
    const { decisions } = await gateway('cooldown_s = 0.8\ntimeout_s = 30\nwait_for_recovery = true');
    await coolWithErrors(decisions);
    behaviour = 'answer';
    const calls = engineCalls;
    const results = await Promise.all([1, 2, 3, 4].map(() => decisions.decide(QUESTION)));
    for (const outcome of results) expect(outcome.answers.q).toMatchObject({ status: 'ok' });
    expect(engineCalls - calls).toBe(4);
  });

  it('on: a call fails at once when the earliest recovery is past its deadline (no waiting for nothing)', async () => {
    // First window 3.75 s; the call's deadline is its attempt timeout, 0.5 s.
    const { decisions, cooldown } = await gateway('cooldown_s = 30\ntimeout_s = 0.5\nwait_for_recovery = true');
    await coolWithErrors(decisions);
    behaviour = 'answer';
    const calls = engineCalls;
    const outcome = await decisions.decide(QUESTION);
    expect(outcome.answers.q).toMatchObject({ status: 'error', error: { code: 'cooling_down' } });
    expect(engineCalls).toBe(calls);
    expect(cooldown.state('scripted').state).toBe('cooling');
  });

  it("on: a caller's cancel ends the wait, as cancelled", async () => {
    const { decisions } = await gateway('cooldown_s = 30\ntimeout_s = 60\nwait_for_recovery = true');
    await coolWithErrors(decisions);
    const caller = new AbortController();
    const waiting = decisions.decide({ ...QUESTION, signal: caller.signal });
    setTimeout(() => caller.abort(), 20);
    expect((await waiting).answers.q).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
  });
});
