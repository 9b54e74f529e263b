import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { ProviderRegistry } from '../../../src/decisions/registry/provider-registry.service';
import { LayaProviderDefinition } from '../../../src/providers/system-one/laya.provider';
import { gatewayApp } from '../../helpers/gateway-app';
import { LayaFake } from '../../fakes/laya.fake';
import { OPTIONS, QUESTION } from './systemone.shared';
import { labels, systemOneDialectSuite } from './systemone-dialect.suite';

describe('laya provider against a fake laya-serve', () => {
  const engine = systemOneDialectSuite({
    definition: LayaProviderDefinition,
    fake: () => new LayaFake(),
    reach: 'local',
    // The pinned checkpoint, and the options as a list of labels.
    wire: { model: 'typed-decisions', criteria: labels },
    decimals: 4,
    capabilities: {
      max_options: 20,
      batch: true,
      probabilities: true,
      model: 'typed-decisions',
      questions: {
        types: ['choice', 'noul', 'score'],
        max_questions: 64,
        max_options: 20,
        max_total_options: 512,
        max_levels: 32,
      },
    },
    defaults: { endpoint: 'http://127.0.0.1:8765', allow_remote: false, model: 'typed-decisions' },
    statusFaults: [
      ['status-500', 'error', /HTTP 500 from 127\.0\.0\.1.*inference failed/],
      ['status-401', 'error', 'invalid or missing bearer token; laya refused the key in SYSTEM1_LAYA_API_KEY'],
      ['status-429', 'error', '(retry after 1 s)'],
      ['status-503', 'error', 'server busy, try again later (retry after 1 s)'],
    ],
    refusedKey: 'invalid or missing bearer token; laya refused the key in SYSTEM1_LAYA_API_KEY',
    health: { detail: 'laya-serve up on cpu; loaded: typed-decisions', route: '/health' },
    refusedSettings: [
      [
        'an unknown model, which Laya would silently auto-route',
        'model = "jev-1"',
        'providers.laya.model',
        'silently auto-route',
      ],
      [
        'a non-loopback endpoint without allow_remote',
        'endpoint = "http://10.1.2.3:8765"',
        'providers.laya.endpoint',
        'set allow_remote = true',
      ],
      [
        'http://LocalHost.:8765, a name DNS resolves, without allow_remote',
        'endpoint = "http://LocalHost.:8765"',
        'providers.laya.endpoint',
        'points at localhost., which is not this machine',
      ],
      [
        'http://localhost%2e:8765 (the same name), without allow_remote',
        'endpoint = "http://localhost%2e:8765"',
        'providers.laya.endpoint',
        'points at localhost., which is not this machine',
      ],
      ['an endpoint that is not a URL', 'endpoint = "laya:8765"', 'providers.laya.endpoint', 'must use http or https'],
      ['a model that is not a string', 'model = 3', 'providers.laya.model', 'must be a string'],
    ],
  });
  const { start, secret: SECRET, keyEnv: KEY_ENV } = engine;

  it('is healthy and decides "Rerun the flaky pipeline or block the merge?" through laya', async () => {
    const { gateway, health } = await start();
    const report = await health.health();
    expect(report.status).toBe('ok');
    expect(report.providers[0]).toMatchObject({
      name: 'laya',
      role: 'primary',
      ok: true,
      detail: 'laya-serve up on cpu; loaded: typed-decisions',
    });

    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'laya',
      decision: 'rerun the pipeline',
      confidence: 0.6667,
      probabilities: { 'rerun the pipeline': 0.6667, 'block the merge': 0.3333 },
      rationale: 'laya typed-decisions: rerun the pipeline=0.6667, block the merge=0.3333',
    });
    expect(reply.attempts).toEqual([{ provider: 'laya', outcome: 'ok', latency_ms: expect.any(Number), detail: null }]);
  });

  describe('the request', () => {
    it('lets Laya route with model = "": no model is sent and the rationale names the checkpoint Laya chose', async () => {
      engine.fake.autoRoute = 'english';
      const { gateway } = await start({ settings: 'model = ""' });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(Object.keys(engine.fake.requestsTo('/v1/systemone')[0].body as object)).not.toContain('model');
      expect(reply).toMatchObject({
        status: 'decided',
        rationale: expect.stringMatching(/^laya english \(auto-routed\): /),
      });
    });

    it('sends every question of a batch in one request and maps each answer', async () => {
      const { app } = await start();
      const provider = app.get(ProviderRegistry).chain()[0].provider!;
      const reply = await provider.evaluate(
        {
          state: { prompt: 'fix the flaky test' },
          questions: {
            tier: {
              type: 'choice',
              instructions: 'Which model tier?',
              criteria: { small: null, medium: null, large: null },
            },
            risky: { type: 'choice', instructions: 'Is it risky?', criteria: { yes: null, no: null } },
          },
        },
        { signal: AbortSignal.timeout(2000), requestId: 'batch' },
      );
      expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(1);
      expect(Object.keys((engine.fake.requestsTo('/v1/systemone')[0].body as { questions: object }).questions)).toEqual(
        ['tier', 'risky'],
      );
      expect(reply.answers).toEqual({
        tier: expect.objectContaining({
          type: 'choice',
          choice: 'small',
          probabilities: { small: 0.5, medium: 0.3333, large: 0.1667 },
          rationale: expect.stringMatching(/^laya typed-decisions: small=0.5/),
        }),
        risky: expect.objectContaining({
          type: 'choice',
          choice: 'yes',
          probabilities: { yes: 0.6667, no: 0.3333 },
          rationale: expect.any(String),
        }),
      });
    });
  });

  describe('the answer', () => {
    // One scale for every engine: the probability of the answer given. Laya's answer_confidence is that
    // number too (wire-contracts), so it is only checked; its entropy `confidence` is ignored.
    it("takes confidence as the answer's probability, not Laya's entropy confidence, and lists probabilities best first", async () => {
      engine.fake.probabilities = { 'rerun the pipeline': 0.48, 'block the merge': 0.52 };
      engine.fake.reshape = (body) => {
        Object.assign((body.answers as Record<string, Record<string, unknown>>).decision, { answer_confidence: 0.53 });
        return body;
      };
      const { gateway } = await start({ gateway: 'min_confidence = 0.5' });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({
        status: 'decided',
        decision: 'block the merge',
        confidence: 0.52,
        probabilities: { 'rerun the pipeline': 0.48, 'block the merge': 0.52 },
        rationale: 'laya typed-decisions: block the merge=0.52, rerun the pipeline=0.48',
      });
    });

    it('under LAYA_JEV_STRICT uses probabilities[choice] and says the checkpoint could not be verified', async () => {
      engine.fake.strict = true;
      engine.fake.probabilities = { 'rerun the pipeline': 0.3, 'block the merge': 0.7 };
      const { gateway } = await start();
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({ status: 'decided', decision: 'block the merge', confidence: 0.7 });
      expect(reply.rationale).toBe(
        'laya typed-decisions (checkpoint not verified: the reply has no routing block, as under LAYA_JEV_STRICT): block the merge=0.7, rerun the pipeline=0.3',
      );
    });

    it('rejects an answer from another checkpoint than the pinned one (Laya auto-routed), and the fallback answers', async () => {
      engine.fake.routeTo = 'english';
      const { gateway } = await start({ gateway: 'fallback = ["mock"]' });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.attempts[0]).toMatchObject({
        provider: 'laya',
        outcome: 'malformed',
        detail: expect.stringContaining('Laya answered with checkpoint "english" instead of "typed-decisions"'),
      });
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
    });

    it('accepts the HF id of a checkpoint as the pinned model', async () => {
      const { gateway } = await start({ settings: 'model = "convaiinnovations/laya-multilingual"' });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(engine.fake.requestsTo('/v1/systemone')[0].body).toMatchObject({
        model: 'convaiinnovations/laya-multilingual',
      });
      expect(reply).toMatchObject({ status: 'decided', rationale: expect.stringMatching(/^laya multilingual: /) });
    });

    it.each([
      [
        'a noul answer',
        (_a: Record<string, unknown>): Record<string, unknown> => ({ type: 'noul', noul: 0.9 }),
        'type "noul" instead of "choice"',
      ],
      [
        'a choice outside the options',
        (a: Record<string, unknown>) => ({ ...a, choice: 'merge anyway' }),
        'the choice "merge anyway" is not one of the candidates sent',
      ],
      [
        'an answer_confidence above 1',
        (a: Record<string, unknown>) => ({ ...a, answer_confidence: 1.4 }),
        'answer_confidence is 1.4',
      ],
    ])('reports %s as malformed_response', async (_name, tamper, detail) => {
      engine.fake.reshape = (body) => {
        const answers = body.answers as Record<string, Record<string, unknown>>;
        answers.decision = tamper(answers.decision);
        return body;
      };
      const { gateway } = await start();
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({
        status: 'error',
        error: { code: 'malformed_response', message: expect.stringContaining(detail) },
      });
    });
  });

  describe('known limitations', () => {
    it('abstains on mostly non-Latin text without asking the English-only checkpoint, and says to use multilingual', async () => {
      const { gateway } = await start({ gateway: 'fallback = ["mock"]' });
      const reply = await gateway.decide({
        question: 'このプルリクエストをマージしてもよいですか？',
        options: ['マージする', '保留する'],
      });
      expect(reply).toMatchObject({ status: 'abstained', provider: 'laya', decision: null });
      expect(reply.rationale).toMatch(/100% of the letters .* are not Latin.*English-only.*model = "multilingual"/);
      expect(reply.attempts.map((a) => a.provider)).toEqual(['laya']);
      expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(0);
    });

    it('counts the context too, and asks the multilingual checkpoint about non-Latin text', async () => {
      const context = { ticket: 'Клиент дважды оплатил заказ и просит вернуть деньги как можно скорее' };
      const english = await start();
      expect(await english.gateway.decide({ question: 'Refund?', context })).toMatchObject({ status: 'abstained' });
      await english.app.close();

      const multilingual = await start({ settings: 'model = "multilingual"' });
      expect(await multilingual.gateway.decide({ question: 'Refund?', context })).toMatchObject({
        status: 'decided',
        provider: 'laya',
      });
      expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(1);
    });

    it('declares at most 20 options, so the pipeline refuses 21 before sending and the fallback answers', async () => {
      const options = Array.from({ length: 21 }, (_, i) => `option ${i + 1}`);
      const { gateway } = await start({ gateway: 'fallback = ["mock"]' });
      const reply = await gateway.decide({ question: 'Which one?', options });
      expect(reply.attempts[0]).toMatchObject({
        provider: 'laya',
        outcome: 'error',
        detail: 'refused: laya takes at most 20 candidates per choice question; "decision" has 21',
      });
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(0);
    });

    it('with Laya alone, 21 options are provider_error with the refused attempt (the spec), not invalid_request', async () => {
      const options = Array.from({ length: 21 }, (_, i) => `option ${i + 1}`);
      const { gateway } = await start();
      const reply = await gateway.decide({ question: 'Which one?', options });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.attempts).toEqual([
        {
          provider: 'laya',
          outcome: 'error',
          latency_ms: 0,
          detail: expect.stringMatching(/^refused: laya takes at most 20/),
        },
      ]);
      expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(0);
    });
  });

  describe('the key', () => {
    it('tells the user to set SYSTEM1_LAYA_API_KEY when laya-serve wants a key and none is set', async () => {
      engine.fake.apiKey = SECRET;
      const { gateway } = await start();
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.error!.message).toContain('HTTP 401');
      expect(reply.error!.message).toContain('set SYSTEM1_LAYA_API_KEY to the key the engine was started with');
    });
  });

  describe('health', () => {
    it('sends the key to /health and warns when the pinned checkpoint is not preloaded', async () => {
      engine.fake.apiKey = SECRET;
      engine.fake.loaded = ['english'];
      const { health } = await start({ env: KEY_ENV });
      const report = await health.health();
      expect(engine.fake.requestsTo('/health')[0]).toMatchObject({
        method: 'GET',
        headers: expect.objectContaining({ authorization: `Bearer ${SECRET}` }),
      });
      expect(report.providers[0]).toMatchObject({
        ok: true,
        detail:
          'laya-serve up on cpu; loaded: english; warning: typed-decisions is not preloaded, so the first decision will be slow (add it to LAYA_MODELS)',
      });
      expect(JSON.stringify(report)).not.toContain(SECRET);
    });

    it('is not ok when laya-serve hides its checkpoints because the key is wrong, and says which variable to fix', async () => {
      engine.fake.apiKey = 'the-real-key';
      const { health, logs } = await start({ env: KEY_ENV });
      const report = await health.health();
      expect(report.status).toBe('down');
      expect(report.providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('laya refused the key in SYSTEM1_LAYA_API_KEY'),
      });
      expect(JSON.stringify(report) + logs.join('\n')).not.toContain(SECRET);
    });

    it('is not ok when laya-serve is busy, with the reason', async () => {
      engine.fake.fault = 'status-503';
      engine.fake.faultEverywhere = true;
      const { health } = await start();
      expect((await health.health()).providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('HTTP 503'),
      });
    });
  });

  describe('settings', () => {
    it('accepts a remote endpoint with allow_remote', async () => {
      const app = await gatewayApp({
        toml: '[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "http://10.1.2.3:8765"\nallow_remote = true',
      });
      try {
        expect(app.get(CapabilitiesService).capabilities().config_errors).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
});
