import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { gatewayApp } from '../../helpers/gateway-app';
import { LlamaServerFake } from '../../fakes/systemone.fake';
import {
  itHandlesEachFault,
  type FaultExpectation,
  engineUnderTest,
  OPTIONS,
  QUESTION,
  TIMEOUT_FAULTS,
  TRANSPORT_FAULTS,
} from './systemone.shared';

const SECRET = 'sk-test-SYSTEMONE-SECRET-42';
const KEY_ENV = { SYSTEM1_SYSTEMONE_API_KEY: SECRET };

describe('systemone provider against a fake llama-server', () => {
  const engine = engineUnderTest('systemone', () => new LlamaServerFake());
  const { start } = engine;

  it('sends no model by default, the options as a self-described map, and names the model the server loaded', async () => {
    engine.fake.apiKey = SECRET;
    engine.fake.probabilities = { 'rerun the pipeline': 0.2, 'block the merge': 0.8 };
    const { gateway } = await start({ env: KEY_ENV });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS, context: { branch: 'main' } });
    const [sent] = engine.fake.requestsTo('/v1/systemone');
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.body).toEqual({
      state: { branch: 'main' },
      questions: {
        decision: {
          type: 'choice',
          instructions: QUESTION,
          criteria: { 'rerun the pipeline': 'rerun the pipeline', 'block the merge': 'block the merge' },
        },
      },
    });
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'systemone',
      decision: 'block the merge',
      confidence: 0.8,
      probabilities: { 'rerun the pipeline': 0.2, 'block the merge': 0.8 },
      rationale: 'systemone d1-3B: block the merge=0.8, rerun the pipeline=0.2',
    });
  });

  it('sends model when set (a router-mode llama-server picks the child by it), and no bearer without a key', async () => {
    const { gateway } = await start({ settings: 'model = "d1-3B"' });
    await gateway.decide({ question: QUESTION, options: OPTIONS });
    const [sent] = engine.fake.requestsTo('/v1/systemone');
    expect(sent.body).toMatchObject({ model: 'd1-3B' });
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('asks a yes/no question as the choice between "yes" and "no", with {} as state (llama-server refuses no state)', async () => {
    engine.fake.pick = 1;
    const { gateway } = await start();
    const reply = await gateway.decide({ question: 'Does this diff touch the database schema?' });
    expect(engine.fake.requestsTo('/v1/systemone')[0].body).toEqual({
      state: {},
      questions: {
        decision: {
          type: 'choice',
          instructions: 'Does this diff touch the database schema?',
          criteria: { yes: 'yes', no: 'no' },
        },
      },
    });
    expect(reply).toMatchObject({ status: 'decided', decision: 'no', confidence: 0.6667 });
  });

  it("declares no option limit of its own and reports the server's refusal of too many options", async () => {
    engine.fake.maxOptions = 3;
    const { gateway, app } = await start();
    expect(app.get(CapabilitiesService).capabilities().providers.systemone).toEqual({
      batch: true,
      probabilities: true,
      model: null,
      questions: { types: ['choice', 'noul', 'score'], max_levels: 10 },
    });
    const reply = await gateway.decide({ question: 'Which?', options: ['a', 'b', 'c', 'd'] });
    expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
    expect(reply.attempts[0].detail).toContain('HTTP 422');
    expect(reply.attempts[0].detail).toContain('at most 3 are supported');
  });

  it('says so when the server has loaded a text model, not a decision model (501)', async () => {
    engine.fake.mode = 'not-decision-model';
    const { gateway } = await start({ gateway: 'fallback = ["mock"]' });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply.attempts[0]).toMatchObject({ provider: 'systemone', outcome: 'error' });
    expect(reply.attempts[0].detail).toContain('HTTP 501');
    expect(reply.attempts[0].detail).toContain("the server's model is not a decision model");
    expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
  });

  it('reports probabilities that do not add up as malformed_response', async () => {
    engine.fake.probabilities = { 'rerun the pipeline': 0.2, 'block the merge': 0.5 };
    const { gateway } = await start();
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply).toMatchObject({ status: 'error', error: { code: 'malformed_response' } });
    expect(reply.error!.message).toContain('systemone answer to "decision": "probabilities" sum to 0.7, not about 1');
  });

  describe('faults', () => {
    const LLAMA_FAULTS: FaultExpectation[] = [
      ...TIMEOUT_FAULTS,
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'Invalid API Key; systemone refused the key in SYSTEM1_SYSTEMONE_API_KEY'],
      ['status-429', 'error', 'the decision queue is full, try again later (retry after 1 s)'],
      ['status-503', 'error', 'Loading model'],
      ...TRANSPORT_FAULTS,
    ];

    beforeEach(() => (engine.fake.apiKey = SECRET));
    itHandlesEachFault(engine, LLAMA_FAULTS, { provider: 'systemone', secret: SECRET, env: KEY_ENV });
  });

  describe('health', () => {
    it('is ok when /health answers {"status":"ok"}', async () => {
      const { health } = await start();
      const report = await health.health();
      expect(report.status).toBe('ok');
      expect(report.providers[0]).toMatchObject({
        name: 'systemone',
        ok: true,
        detail: 'System One server up with its model loaded',
      });
    });

    it('is not ok while the model is loading (503 Loading model), and decisions fail with the reason', async () => {
      engine.fake.mode = 'loading';
      const { health, gateway } = await start();
      expect((await health.health()).providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringMatching(
          /^the server is still loading its model \(HTTP 503 from 127\.0\.0\.1:\d+: Loading model\)/,
        ),
      });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.error!.message).toContain('HTTP 503');
      expect(reply.error!.message).toContain('Loading model');
    });

    it('is not ok when the server is down', async () => {
      const { health } = await start();
      await engine.fake.stop();
      expect((await health.health()).providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('connection refused: is the engine running?'),
      });
    });
  });

  describe('settings', () => {
    it.each([
      [
        'a non-loopback endpoint without allow_remote',
        'endpoint = "http://gpu-box.lan:8790"',
        'providers.systemone.endpoint',
        'set allow_remote = true',
      ],
      ['an empty model', 'model = ""', 'providers.systemone.model', 'must be a non-empty string'],
      ['an unknown setting', 'alias = "d1"', 'providers.systemone.alias', 'is not a setting of provider systemone'],
    ])('refuses %s as a config error naming the key', async (_name, line, key, words) => {
      const app = await gatewayApp({ toml: `[gateway]\nprovider = "systemone"\n[providers.systemone]\n${line}` });
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
  });
});
