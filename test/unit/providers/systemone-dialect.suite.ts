/**
 * The suite every System One dialect passes (laya, von, systemone, typesafe, cloudflare), given what differs
 * between them: how its request looks on the wire, its capabilities, its words for each HTTP status, its
 * health, its settings. A dialect's spec calls it inside its describe and adds the tests of what only that
 * engine does. The provider's name and key variable come from its definition.
 *
 * @example
 * describe('von provider against a fake von serve', () => {
 *   const engine = systemOneDialectSuite({ definition: VonProviderDefinition, fake: () => new VonFake(), ... });
 *   it('takes confidence as probabilities[choice]', async () => { const { gateway } = await engine.start(); ... });
 * });
 */
import type { ProviderDefinition } from '../../../src/decisions/registry/provider.interface';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { SYSTEMONE_ROUTE, type SystemOneEngineFake } from '../../fakes/systemone-answer';
import { gatewayApp } from '../../helpers/gateway-app';
import {
  engineUnderTest,
  type FaultExpectation,
  type GatewayOptions,
  itHandlesEachFault,
  OPTIONS,
  QUESTION,
  TIMEOUT_FAULTS,
  TRANSPORT_FAULTS,
} from './systemone.shared';

/** A System One fake that checks a bearer key when `apiKey` is set. */
export type KeyedFake = SystemOneEngineFake & { apiKey?: string };

/** A config line the dialect refuses: [what, the TOML line(s), the key the error names, words of its message]. */
export type RefusedSetting = [what: string, lines: string, key: string, words: string];

export interface SystemOneDialectSpec<F extends KeyedFake> {
  definition: new (http: EngineHttpClient) => ProviderDefinition;
  /** A fresh fake of the engine; `key` is the suite's key, for a fake that must be started with one. */
  fake: (key: string) => F;
  /** `local`: sends no bearer without a key. `hosted`: refuses to call the engine without one. */
  reach: 'local' | 'hosted';
  /** Settings every gateway of the suite needs besides the endpoint (Cloudflare's account). */
  settings?: string;
  /** Where decisions are posted; default `/v1/systemone`. */
  route?: string;
  /** How the request carries the question: the model it names (none: no `model`), and the options. */
  wire: { model?: string; criteria: (options: string[]) => unknown };
  /** Decimals the engine rounds probabilities to. */
  decimals: number;
  /** What `system1_capabilities` says of the engine. */
  capabilities: Record<string, unknown>;
  /** Every setting and its published default (null: none). */
  defaults: Record<string, unknown>;
  /** The engine's own words for each HTTP status it answers with (timeouts and transport faults are added). */
  statusFaults: FaultExpectation[];
  /** How a refused key is reported, besides the status (it names the key variable). */
  refusedKey: string;
  /** A healthy engine's detail, and where the key goes for it (none: health sends no request). */
  health: { detail: string; route?: string };
  refusedSettings: RefusedSetting[];
}

/** The options as a self-described map (`{"rerun": "rerun"}`), as most dialects send them. */
export const selfDescribed = (options: string[]) => Object.fromEntries(options.map((option) => [option, option]));
/** The options as a list of labels, as Laya takes them. */
export const labels = (options: string[]) => options;

const round = (value: number, decimals: number) => Number(value.toFixed(decimals));

/** The key the suite sets for a dialect (for a dialect's own tests that write it where it must not go). */
export const dialectSecret = (provider: string) => `sk-test-${provider.toUpperCase()}-SECRET-42`;

/** Registers the shared tests in the calling describe, and returns its engine for the dialect's own tests. */
export function systemOneDialectSuite<F extends KeyedFake>(dialect: SystemOneDialectSpec<F>) {
  const { name: provider, keyVariable } = new dialect.definition(new EngineHttpClient());
  if (!keyVariable) throw new Error(`${provider} names no keyVariable: every System One dialect takes a key`);
  const secret = dialectSecret(provider);
  const keyEnv = { [keyVariable]: secret };
  const route = dialect.route ?? SYSTEMONE_ROUTE;
  const defaults: GatewayOptions = { settings: dialect.settings ?? '' };
  const engine = Object.assign(
    engineUnderTest(provider, () => dialect.fake(secret), defaults),
    {
      secret,
      keyEnv,
      keyVariable,
    },
  );
  const { start } = engine;
  const body = (instructions: string, options: string[], state: object) => ({
    ...(dialect.wire.model !== undefined && { model: dialect.wire.model }),
    state,
    questions: { decision: { type: 'choice', instructions, criteria: dialect.wire.criteria(options) } },
  });

  describe(`the ${provider} dialect`, () => {
    it('sends the options in its shape, the context as state and the key as a bearer, in one JSON POST', async () => {
      engine.fake.apiKey = secret;
      const { gateway } = await start({ env: keyEnv });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS, context: { branch: 'main' } });
      expect(engine.fake.requests).toHaveLength(1);
      const [sent] = engine.fake.requestsTo(route);
      expect(sent).toMatchObject({
        method: 'POST',
        headers: expect.objectContaining({ authorization: `Bearer ${secret}`, 'content-type': 'application/json' }),
      });
      expect(sent.body).toEqual(body(QUESTION, OPTIONS, { branch: 'main' }));
      expect(reply).toMatchObject({ status: 'decided', provider, decision: OPTIONS[0] });
    });

    it('asks a yes/no question as the choice between "yes" and "no", with {} as state when there is no context', async () => {
      engine.fake.pick = 'no';
      const { gateway } = await start({ env: keyEnv });
      const reply = await gateway.decide({ question: 'Is `git push --force` to main safe?' });
      expect(engine.fake.requestsTo(route)[0].body).toEqual(
        body('Is `git push --force` to main safe?', ['yes', 'no'], {}),
      );
      const sure = round(2 / 3, dialect.decimals);
      expect(reply).toMatchObject({
        status: 'decided',
        decision: 'no',
        confidence: sure,
        probabilities: { yes: round(1 / 3, dialect.decimals), no: sure },
      });
    });

    it('declares its capabilities, and publishes its key variable and settings with their defaults', async () => {
      const { app } = await start({ env: keyEnv });
      const capabilities = app.get(CapabilitiesService).capabilities();
      expect(capabilities.config_errors).toEqual([]);
      expect(capabilities.providers[provider]).toEqual(dialect.capabilities);
      const published = capabilities.available_providers.find((p) => p.name === provider)!;
      expect(published.key_variable).toBe(keyVariable);
      const settings = published.settings as Record<string, { default?: unknown }>;
      expect(Object.fromEntries(Object.entries(settings).map(([key, spec]) => [key, spec.default]))).toEqual(
        dialect.defaults,
      );
    });

    if (dialect.reach === 'local') {
      it('sends no Authorization header without a key', async () => {
        const { gateway } = await start();
        expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({ status: 'decided' });
        expect(engine.fake.requestsTo(route)[0].headers.authorization).toBeUndefined();
      });
    } else {
      it(`fails the attempt without calling the engine when ${keyVariable} is not set, and health says the same`, async () => {
        const { gateway, health } = await start({ gateway: 'fallback = ["mock"]' });
        const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
        const unset = expect.stringContaining(`set ${keyVariable}`);
        expect(reply.attempts[0]).toMatchObject({ provider, outcome: 'error', detail: unset });
        expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
        expect((await health.health()).providers[0]).toMatchObject({ ok: false, detail: unset });
        expect(engine.fake.requests).toHaveLength(0);
      });
    }

    it(`says a refused key is the one in ${keyVariable}, and never shows it`, async () => {
      engine.fake.apiKey = 'the-real-key';
      const { gateway, logs } = await start({ env: keyEnv });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.error!.message).toContain('HTTP 401');
      expect(reply.error!.message).toContain(dialect.refusedKey);
      expect(reply.error!.message).toContain(keyVariable);
      expect(JSON.stringify(reply) + logs.join('\n')).not.toContain(secret);
    });

    describe('faults', () => {
      beforeEach(() => (engine.fake.apiKey = secret));
      itHandlesEachFault(engine, [...TIMEOUT_FAULTS, ...dialect.statusFaults, ...TRANSPORT_FAULTS], {
        provider,
        secret,
        env: keyEnv,
        route,
      });
    });

    describe('health', () => {
      it(`is ok when the engine is up${dialect.health.route ? ', sending the key' : ''}`, async () => {
        engine.fake.apiKey = secret;
        const { health } = await start({ env: keyEnv });
        const report = await health.health();
        expect(report.status).toBe('ok');
        expect(report.providers[0]).toMatchObject({ name: provider, ok: true, detail: dialect.health.detail });
        if (dialect.health.route)
          expect(engine.fake.requestsTo(dialect.health.route)[0]).toMatchObject({
            method: 'GET',
            headers: expect.objectContaining({ authorization: `Bearer ${secret}` }),
          });
        else expect(engine.fake.requests).toHaveLength(0);
        expect(JSON.stringify(report)).not.toContain(secret);
      });

      if (dialect.reach === 'local')
        it('is not ok when the engine is down, and says so', async () => {
          const { health } = await start();
          await engine.fake.stop();
          const report = await health.health();
          expect(report.status).toBe('down');
          expect(report.providers[0]).toMatchObject({
            ok: false,
            detail: expect.stringContaining('connection refused: is the engine running?'),
          });
        });
    });

    describe('settings', () => {
      it.each(dialect.refusedSettings)(
        'refuses %s as a config error naming the key',
        async (_what, lines, key, words) => {
          const app = await gatewayApp({
            toml: `[gateway]\nprovider = "${provider}"\n[providers.${provider}]\n${lines}`,
            env: keyEnv,
          });
          try {
            const capabilities = app.get(CapabilitiesService).capabilities();
            expect(capabilities.config_errors).toEqual([
              { file: expect.any(String), key, message: expect.stringContaining(words) },
            ]);
            expect(JSON.stringify(capabilities)).not.toContain(secret);
            expect(await app.get(DecideService).decide({ question: QUESTION })).toMatchObject({
              status: 'error',
              error: { code: 'config_error', message: expect.stringContaining(key) },
            });
          } finally {
            await app.close();
          }
        },
      );
    });
  });

  return engine;
}
