import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { gatewayApp } from '../../helpers/gateway-app';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import {
  itHandlesEachFault,
  type FaultExpectation,
  engineUnderTest,
  OPTIONS,
  QUESTION,
  TIMEOUT_FAULTS,
  TRANSPORT_FAULTS,
} from './systemone.shared';

const SECRET = 'sk-test-TYPESAFE-SECRET-42';
const KEY_ENV = { SYSTEM1_TYPESAFE_API_KEY: SECRET };

describe('typesafe provider against a fake TypeSafe API', () => {
  const engine = engineUnderTest('typesafe', () => new TypeSafeFake({ apiKey: SECRET }));
  const { start } = engine;

  it('sends the model, the options as a self-described map and the key as a bearer, and names the versioned model that answered', async () => {
    const { gateway } = await start({ env: KEY_ENV, gateway: 'min_confidence = 0.5' });
    const reply = await gateway.decide({
      question: 'Which team should handle this?',
      options: ['billing', 'shipping', 'technical'],
      context: { ticket: 'charged twice' },
    });
    const [sent] = engine.fake.requestsTo('/v1/systemone');
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.body).toEqual({
      model: 'jev-latest',
      state: { ticket: 'charged twice' },
      questions: {
        decision: {
          type: 'choice',
          instructions: 'Which team should handle this?',
          criteria: { billing: 'billing', shipping: 'shipping', technical: 'technical' },
        },
      },
    });
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'typesafe',
      decision: 'billing',
      confidence: 0.5,
      probabilities: { billing: 0.5, shipping: 0.33, technical: 0.17 },
      rationale: 'typesafe jev-1.14.0: billing=0.5, shipping=0.33, technical=0.17',
    });
  });

  it('tolerates 2-decimal rounding (a sum of 0.99) and takes confidence as probabilities[choice]', async () => {
    engine.fake.probabilities = { 'rerun the pipeline': 0.33, 'block the merge': 0.66 };
    const { gateway } = await start({ env: KEY_ENV, settings: 'model = "jev-1.13.0"' });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(engine.fake.requestsTo('/v1/systemone')[0].body).toMatchObject({ model: 'jev-1.13.0' });
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'block the merge',
      confidence: 0.66,
      rationale: 'typesafe jev-1.13.0: block the merge=0.66, rerun the pipeline=0.33',
    });
  });

  it('asks a yes/no question as the choice between "yes" and "no"', async () => {
    const { gateway } = await start({ env: KEY_ENV });
    const reply = await gateway.decide({ question: 'Is this customer angry?' });
    expect(engine.fake.requestsTo('/v1/systemone')[0].body).toMatchObject({
      state: {},
      questions: { decision: { type: 'choice', criteria: { yes: 'yes', no: 'no' } } },
    });
    expect(reply).toMatchObject({ status: 'decided', decision: 'yes', confidence: 0.67 });
  });

  it('declares 255 options, one pass per batch and probabilities', async () => {
    const { app } = await start({ env: KEY_ENV });
    expect(app.get(CapabilitiesService).capabilities().providers.typesafe).toMatchObject({
      max_options: 255,
      batch: true,
      probabilities: true,
      model: 'jev-latest',
    });
  });

  describe('the key', () => {
    it('fails the attempt without calling TypeSafe when SYSTEM1_TYPESAFE_API_KEY is not set, and health says the same', async () => {
      const { gateway, health } = await start({ gateway: 'fallback = ["mock"]' });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.attempts[0]).toMatchObject({
        provider: 'typesafe',
        outcome: 'error',
        detail: expect.stringContaining('set SYSTEM1_TYPESAFE_API_KEY'),
      });
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
      expect((await health.health()).providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('set SYSTEM1_TYPESAFE_API_KEY'),
      });
      expect(engine.fake.requests).toHaveLength(0);
    });

    it('reports a wrong key (401) as refused, never showing it, in decisions and health', async () => {
      engine.fake.apiKey = 'the-real-key';
      const { gateway, health, logs } = await start({ env: KEY_ENV });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.attempts[0].detail).toMatch(
        /^HTTP 401 from 127\.0\.0\.1:\d+: Invalid API key\.; TypeSafe refused the API key: check SYSTEM1_TYPESAFE_API_KEY$/,
      );
      const report = await health.health();
      expect(engine.fake.requestsTo('/v1/models')[0].headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(report.providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('TypeSafe refused the API key'),
      });
      expect(JSON.stringify(reply) + JSON.stringify(report) + logs.join('\n')).not.toContain(SECRET);
    });
  });

  describe('faults', () => {
    const TYPESAFE_FAULTS: FaultExpectation[] = [
      ...TIMEOUT_FAULTS,
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'Invalid API key.; TypeSafe refused the API key'],
      [
        'status-403',
        'error',
        'Must supply an API key! Check your request and try again.; TypeSafe refused the API key',
      ],
      ['status-429', 'error', 'Rate limit exceeded. (retry after 1 s)'],
      ['status-503', 'error', 'The service is overloaded.'],
      ...TRANSPORT_FAULTS,
    ];

    itHandlesEachFault(engine, TYPESAFE_FAULTS, { provider: 'typesafe', secret: SECRET, env: KEY_ENV });
  });

  describe('health', () => {
    it('is ok when GET /v1/models accepts the key', async () => {
      const { health } = await start({ env: KEY_ENV });
      const report = await health.health();
      expect(report.status).toBe('ok');
      expect(report.providers[0]).toMatchObject({
        ok: true,
        detail: 'TypeSafe API reachable and the key accepted; model jev-latest',
      });
      expect(engine.fake.requestsTo('/v1/models')[0]).toMatchObject({
        method: 'GET',
        headers: expect.objectContaining({ authorization: `Bearer ${SECRET}` }),
      });
    });

    it('is not ok when the API fails, with the reason', async () => {
      engine.fake.fault = 'status-503';
      engine.fake.faultEverywhere = true;
      const { health } = await start({ env: KEY_ENV });
      expect((await health.health()).providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('HTTP 503'),
      });
    });
  });

  describe('settings', () => {
    it.each([
      [
        'an unknown model',
        'model = "jev-2"',
        'providers.typesafe.model',
        'must be one of "jev-1.13.0", "jev-1.14.0", "jev-latest", "jev-preview"',
      ],
      [
        'plain http to another machine (the key would travel in clear text)',
        'endpoint = "http://api.typesafe.ai"',
        'providers.typesafe.endpoint',
        'must use https',
      ],
      [
        'allow_remote, which a hosted API does not take',
        'allow_remote = true',
        'providers.typesafe.allow_remote',
        'is not a setting of provider typesafe',
      ],
    ])('refuses %s as a config error naming the key', async (_name, line, key, words) => {
      const app = await gatewayApp({
        toml: `[gateway]\nprovider = "typesafe"\n[providers.typesafe]\n${line}`,
        env: KEY_ENV,
      });
      try {
        expect(app.get(CapabilitiesService).capabilities().config_errors).toEqual([
          { file: expect.any(String), key, message: expect.stringContaining(words) },
        ]);
        expect(await app.get(DecideService).decide({ question: QUESTION })).toMatchObject({
          status: 'error',
          error: { code: 'config_error' },
        });
      } finally {
        await app.close();
      }
    });

    it('takes the remote https endpoint by default, with no allow_remote', async () => {
      const app = await gatewayApp({ toml: '[gateway]\nprovider = "typesafe"', env: KEY_ENV });
      try {
        const capabilities = app.get(CapabilitiesService).capabilities();
        expect(capabilities.config_errors).toEqual([]);
        expect(capabilities.available_providers.find((p) => p.name === 'typesafe')!.settings).toEqual({
          endpoint: expect.objectContaining({ default: 'https://api.typesafe.ai' }),
          model: expect.objectContaining({ default: 'jev-latest' }),
        });
      } finally {
        await app.close();
      }
    });
  });
});
