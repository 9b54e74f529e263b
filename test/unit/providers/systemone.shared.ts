/**
 * What the System One provider suites (laya, von, systemone, typesafe, cloudflare) share: starting the
 * gateway against a fake, and the table of FakeEngine faults with the outcome and detail a user should see
 * for each.
 */
import { type TestingModule } from '@nestjs/testing';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { type Fault, type FakeEngine } from '../../fakes/fake-engine';
import { eventually } from '../../helpers/eventually';
import { gatewayApp } from '../../helpers/gateway-app';

export const QUESTION = 'Rerun the flaky pipeline or block the merge?';
export const OPTIONS = ['rerun the pipeline', 'block the merge'];

export interface StartedGateway {
  app: TestingModule;
  gateway: DecideService;
  health: HealthService;
  logs: string[];
}

/** The gateway with `provider = <name>` at the fake's endpoint, plus any extra TOML lines. */
export interface GatewayOptions {
  gateway?: string;
  settings?: string;
  env?: Record<string, string>;
}

export async function gatewayFor(
  provider: string,
  fake: FakeEngine,
  { gateway = '', settings = '', env = {} }: GatewayOptions = {},
): Promise<StartedGateway> {
  const logs: string[] = [];
  const toml = `[gateway]\nprovider = "${provider}"\n${gateway}\n[providers.${provider}]\nendpoint = "${fake.url.origin}"\n${settings}`;
  const app = await gatewayApp({ toml, env, logs });
  return { app, gateway: app.get(DecideService), health: app.get(HealthService), logs };
}

/**
 * The set-up every engine suite shares: a fresh fake started before each test, and after it the gateway
 * `start()` built in front of the fake closed and the fake stopped. A test may swap `fake` for one of its own.
 */
export function engineUnderTest<F extends FakeEngine>(
  provider: string,
  makeFake: () => F,
  defaults: GatewayOptions = {},
) {
  let started: StartedGateway | undefined;
  const suite = {
    fake: undefined as unknown as F,
    start: async (options: GatewayOptions = {}) =>
      (started = await gatewayFor(provider, suite.fake, { ...defaults, ...options })),
  };
  beforeEach(async () => {
    suite.fake = makeFake();
    await suite.fake.start();
  });
  afterEach(async () => {
    await started?.app.close();
    started = undefined;
    await suite.fake.stop();
  });
  return suite;
}

export type FaultExpectation = [fault: Fault, outcome: 'timeout' | 'error' | 'malformed', detail: string | RegExp];

/** Faults whose attempt must end at the gateway's timeout. */
export const TIMEOUT_FAULTS: FaultExpectation[] = (['slow', 'hang', 'hang-after-headers', 'stall-body'] as const).map(
  (fault) => [fault, 'timeout', 'no answer within 0.3 s'],
);

/** Transport and body faults: the same words for every engine (the shared HTTP client's). */
export const TRANSPORT_FAULTS: FaultExpectation[] = [
  ['reset', 'error', 'the engine reset the connection'],
  // Which words depend on when the socket closes relative to the half-read body.
  ['truncated', 'error', /the reply was cut off|the engine reset the connection/],
  ['non-json', 'malformed', 'is not JSON (text/plain'],
  ['html-502', 'error', 'HTTP 502 from 127.0.0.1'],
  ['huge', 'error', 'the reply is larger than 1048576 bytes'],
  ['redirect', 'error', 'redirect refused: HTTP 302'],
  ['wrong-shape', 'malformed', 'without an "answers" object'],
];

/**
 * The gateway settings of a fault test: the mock behind the engine, and a short timeout for the faults that
 * must end at it. Every other fault gets a long one, so that a busy machine reading a 5 MB body slowly still
 * shows that fault's own error rather than a timeout.
 */
export function faultGateway(outcome: FaultExpectation[1]): string {
  return `timeout_s = ${outcome === 'timeout' ? 0.3 : 5}\nfallback = ["mock"]`;
}

/**
 * Checks one fault's attempt: its outcome and detail (a timed-out attempt's names the timeout), that the mock
 * then answered, and that the secret shows up nowhere. (That the timeout really cut the engine
 * off is {@link expectCutOff}: the engine's side of it.)
 */
export function expectFaultHandled(
  reply: Awaited<ReturnType<DecideService['decide']>>,
  logs: string[],
  [, outcome, detail]: FaultExpectation,
  { provider, secret }: { provider: string; secret: string },
): void {
  const matching = typeof detail === 'string' ? expect.stringContaining(detail) : expect.stringMatching(detail);
  expect(reply.attempts[0]).toEqual({ provider, outcome, latency_ms: expect.any(Number), detail: matching });
  expect(reply.attempts[1]).toMatchObject({ provider: 'mock', outcome: 'ok' });
  expect(reply).toMatchObject({ status: 'decided', provider: 'mock', decision: OPTIONS[0] });
  expect(JSON.stringify(reply)).not.toContain(secret);
  expect(logs.join('\n')).not.toContain(secret);
  expect(logs.join('\n')).toEqual(matching); // the failure is logged, in the same words
}

/**
 * A timed-out attempt closed its connection before the engine answered: the engine saw its request
 * abandoned. A timeout that only stopped waiting (the request left running) or that waited for the reply
 * and then called it late never shows here.
 */
export async function expectCutOff(fake: FakeEngine, abandonedBefore = 0): Promise<void> {
  await eventually(
    () => fake.abandoned > abandonedBefore,
    `${fake.name} fake to see its request closed at the timeout`,
  );
}

/**
 * One test per fault: the engine plays it, and {@link expectFaultHandled} holds (and {@link expectCutOff}
 * for a timeout). The key went to the engine as
 * a bearer on `route`, so its absence from the reply and the logs means something.
 */
export function itHandlesEachFault(
  engine: ReturnType<typeof engineUnderTest>,
  faults: FaultExpectation[],
  {
    provider,
    secret,
    env,
    route = '/v1/systemone',
  }: { provider: string; secret: string; env: Record<string, string>; route?: string },
): void {
  it.each(faults)('%s: attempt %s, the fallback answers, and the key shows nowhere', async (...expectation) => {
    engine.fake.fault = expectation[0];
    const { gateway, logs } = await engine.start({ gateway: faultGateway(expectation[1]), env });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(engine.fake.requestsTo(route)[0].headers.authorization).toBe(`Bearer ${secret}`);
    expectFaultHandled(reply, logs, expectation, { provider, secret });
    if (expectation[1] === 'timeout') await expectCutOff(engine.fake);
  });
}
