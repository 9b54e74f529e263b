/**
 * The library's options for the tail: `hedgeAfterMs` over a pool of replicas, `cacheTtlS`, `waitForRecovery`,
 * each through `createSystem1` over fake engines on loopback, and refused when malformed.
 */
import { Test } from '@nestjs/testing';
import { createSystem1, system1From } from '../../../src/library/create-system1';
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { System1Module } from '../../../src/system1/system1.module';
import { loadConfig } from '../../../src/config/config.loader';
import { LayaFake } from '../../fakes/laya.fake';
import { SYSTEMONE_ROUTE } from '../../fakes/systemone-answer';
import { LibrarySandbox, waitFor } from './library-setup';

const STATE = { message: 'My card was charged twice.' };
const QUESTIONS = {
  topic: {
    type: 'choice' as const,
    instructions: 'Choose a topic.',
    criteria: { billing: 'Billing', technical: 'Technical' },
  },
};

let sandbox: LibrarySandbox;
let fakes: LayaFake[] = [];
beforeEach(async () => {
  sandbox = new LibrarySandbox();
  fakes = [new LayaFake(), new LayaFake()];
  for (const fake of fakes) await fake.start();
});
afterEach(async () => {
  await sandbox.close();
  await Promise.all(fakes.map((fake) => fake.stop()));
});

const pool = (gateway = '') =>
  `[gateway]\nprovider = "laya"\n${gateway}\n[providers.laya]\nendpoints = [${fakes.map((fake) => JSON.stringify(fake.url.origin)).join(', ')}]\n`;

describe('createSystem1 options for the tail', () => {
  it('cacheTtlS: an identical call within it is answered without an engine call (meta.cached)', async () => {
    const system1 = await sandbox.open(pool(), {}, { cacheTtlS: 60 });
    const first = await system1.decide({ state: STATE, questions: QUESTIONS });
    const second = await system1.decide({ state: STATE, questions: QUESTIONS });
    expect(second.answers).toEqual(first.answers);
    expect([first.meta.cached, second.meta.cached]).toEqual([undefined, true]);
    expect(fakes.reduce((sum, fake) => sum + fake.requestsTo(SYSTEMONE_ROUTE).length, 0)).toBe(1);
  });

  it('hedgeAfterMs: a call the slow replica holds goes to the other one too, whose answer wins; the slow copy is closed', async () => {
    const [slow, quick] = fakes;
    slow.fault = 'slow';
    slow.slowMs = 10_000;
    const system1 = await sandbox.open(pool('hedge_budget = 1'), {}, { hedgeAfterMs: 30, timeoutMs: 20_000 });
    for (let i = 0; i < 4; i++) {
      const result = await system1.decide({ state: STATE, questions: QUESTIONS });
      expect(result.answers.topic).toMatchObject({ status: 'ok' });
      expect(result.meta.attempts).toBeUndefined(); // a lost race is no failure
    }
    expect(quick.requestsTo(SYSTEMONE_ROUTE).length).toBe(4);
    const sentToSlow = slow.requestsTo(SYSTEMONE_ROUTE).length;
    expect(sentToSlow).toBeGreaterThan(0);
    await waitFor(() => slow.abandoned === sentToSlow, 'the slow replica to see each losing copy closed');
  });

  it('waitForRecovery: a call finding the only engine cooling waits for it to recover, where without it the call fails at once', async () => {
    const [laya] = fakes;
    const toml = `[gateway]\nprovider = "laya"\ncooldown_s = 0.8\n[providers.laya]\nendpoint = "${laya.url.origin}"\n`;
    const waiting = await sandbox.open(toml, {}, { waitForRecovery: true, timeoutMs: 10_000 });
    laya.fault = 'status-500';
    for (let i = 0; i < 3; i++) await waiting.decide({ state: STATE, questions: QUESTIONS });
    laya.fault = 'none';
    const recovered = await waiting.decide({ state: STATE, questions: QUESTIONS });
    expect(recovered.answers.topic).toMatchObject({ status: 'ok' });

    const failing = await sandbox.open(
      toml.replace('cooldown_s = 0.8', 'cooldown_s = 600'),
      {},
      { waitForRecovery: false },
    );
    laya.fault = 'status-500';
    for (let i = 0; i < 3; i++) await failing.decide({ state: STATE, questions: QUESTIONS });
    laya.fault = 'none';
    const cooling = await failing.decide({ state: STATE, questions: QUESTIONS });
    expect(cooling.answers.topic).toMatchObject({
      status: 'error',
      error: { code: 'unavailable', message: expect.stringContaining('cooling down') },
    });
  });

  it.each([
    [{ hedgeAfterMs: -1 }, 'hedgeAfterMs'],
    [{ hedgeAfterMs: 'soon' }, 'hedgeAfterMs'],
    [{ cacheTtlS: -5 }, 'cacheTtlS'],
    [{ waitForRecovery: 'yes' }, 'waitForRecovery'],
  ])('refuses %j when the service is created', async (options, field) => {
    await expect(
      createSystem1({ configFile: sandbox.configFile, logger: false, ...(options as object) }),
    ).rejects.toThrow(System1InputError);
    await expect(
      createSystem1({ configFile: sandbox.configFile, logger: false, ...(options as object) }),
    ).rejects.toThrow(field);
  });

  it.each([
    ['hedgeAfterMs', 'hedge_after_ms', -1, '[0, 300000]'],
    ['hedgeAfterMs', 'hedge_after_ms', 300_001, '[0, 300000]'],
    ['hedgeAfterMs', 'hedge_after_ms', 'soon', '[0, 300000]'],
    ['cacheTtlS', 'cache_ttl_s', -5, '[0, 86400]'],
    ['cacheTtlS', 'cache_ttl_s', 86_401, '[0, 86400]'],
  ])(
    "%s (as [gateway] %s) = %j: refused in the config's words, with its range %s",
    async (option, key, value, range) => {
      const refusal = await createSystem1({ configFile: sandbox.configFile, logger: false, [option]: value }).then(
        () => 'accepted',
        (error: Error) => error.message,
      );
      const config = loadConfig({
        env: { HOME: sandbox.root, SYSTEM1_INSTALL_DIR: sandbox.installDir, SYSTEM1_CONFIG: '/c.toml' },
        readFile: () => `[gateway]\n${key} = ${JSON.stringify(value)}\n`,
      });
      const problem = config.errors.map((error) => error.message.replace(`/c.toml: gateway.${key} `, ''));
      expect(problem).toEqual([expect.stringContaining(range)]);
      expect(refusal).toBe(`${option} ${problem[0]}`);
    },
  );

  it('takes hedgeAfterMs "off" as the config takes hedge_after_ms = "off": over the config\'s hedging, no second copy', async () => {
    for (const fake of fakes) Object.assign(fake, { fault: 'slow', slowMs: 300 });
    const hedging = pool('hedge_after_ms = 10\nhedge_budget = 1');
    const system1 = await sandbox.open(hedging, {}, { hedgeAfterMs: 'off' as never, timeoutMs: 20_000 });
    const result = await system1.decide({ state: STATE, questions: QUESTIONS });
    expect(result.answers.topic).toMatchObject({ status: 'ok' });
    expect(fakes.reduce((sum, fake) => sum + fake.requestsTo(SYSTEMONE_ROUTE).length, 0)).toBe(1);
  });

  it('refuses cacheTtlS with system1From: the application built the cache from its own config', async () => {
    const config = loadConfig({
      env: { HOME: sandbox.root, SYSTEM1_INSTALL_DIR: sandbox.installDir, SYSTEM1_CONFIG: '/none.toml' },
      readFile: () => '',
    });
    const app = await Test.createTestingModule({ imports: [System1Module.forRoot({ config, env: {} })] }).compile();
    try {
      expect(() => system1From(app, { cacheTtlS: 5 })).toThrow(/cacheTtlS.*cache_ttl_s/);
    } finally {
      await app.close();
    }
  });
});
