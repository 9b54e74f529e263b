import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { TypeSafeProviderDefinition } from '../../../src/providers/system-one/typesafe.provider';
import { gatewayApp } from '../../helpers/gateway-app';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { OPTIONS, QUESTION } from './systemone.shared';
import { selfDescribed, systemOneDialectSuite } from './systemone-dialect.suite';

describe('typesafe provider against a fake TypeSafe API', () => {
  const engine = systemOneDialectSuite({
    definition: TypeSafeProviderDefinition,
    fake: (key) => new TypeSafeFake({ apiKey: key }),
    reach: 'hosted',
    wire: { model: 'jev-latest', criteria: selfDescribed },
    decimals: 2,
    capabilities: {
      max_options: 255,
      batch: true,
      probabilities: true,
      model: 'jev-latest',
      remote: true,
      questions: {
        types: ['choice', 'noul', 'score'],
        max_options: 255,
        max_levels: 10,
        long_context: { max_tokens: 262_144 },
      },
    },
    defaults: { endpoint: 'https://api.typesafe.ai', model: 'jev-latest' },
    statusFaults: [
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'Invalid API key.; TypeSafe refused the API key'],
      [
        'status-403',
        'error',
        'Must supply an API key! Check your request and try again.; TypeSafe refused the API key',
      ],
      ['status-429', 'error', 'Rate limit exceeded. (retry after 1 s)'],
      ['status-503', 'error', 'The service is overloaded.'],
    ],
    refusedKey: 'TypeSafe refused the API key: check SYSTEM1_TYPESAFE_API_KEY',
    health: { detail: 'TypeSafe API reachable and the key accepted; model jev-latest', route: '/v1/models' },
    refusedSettings: [
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
    ],
  });
  const { start, secret: SECRET, keyEnv: KEY_ENV } = engine;

  it('names the versioned model that answered, with the probabilities best first', async () => {
    const { gateway } = await start({ env: KEY_ENV, gateway: 'min_confidence = 0.5' });
    const reply = await gateway.decide({
      question: 'Which team should handle this?',
      options: ['billing', 'shipping', 'technical'],
      context: { ticket: 'charged twice' },
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

  describe('the key', () => {
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

  describe('health', () => {
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
    it('takes the remote https endpoint by default, with no allow_remote', async () => {
      const app = await gatewayApp({ toml: '[gateway]\nprovider = "typesafe"', env: KEY_ENV });
      try {
        expect(app.get(CapabilitiesService).capabilities().config_errors).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
});
