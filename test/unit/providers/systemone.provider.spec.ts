import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { SystemOneProviderDefinition } from '../../../src/providers/system-one/systemone.provider';
import { LlamaServerFake } from '../../fakes/systemone.fake';
import { OPTIONS, QUESTION } from './systemone.shared';
import { selfDescribed, systemOneDialectSuite } from './systemone-dialect.suite';

describe('systemone provider against a fake llama-server', () => {
  const engine = systemOneDialectSuite({
    definition: SystemOneProviderDefinition,
    fake: () => new LlamaServerFake(),
    reach: 'local',
    // No model by default: the server answers with the one it loaded.
    wire: { criteria: selfDescribed },
    decimals: 4,
    capabilities: {
      batch: true,
      probabilities: true,
      model: null,
      questions: { types: ['choice', 'noul', 'score'], max_levels: 10 },
    },
    defaults: { endpoint: 'http://127.0.0.1:8790', allow_remote: false, model: null },
    statusFaults: [
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'Invalid API Key; systemone refused the key in SYSTEM1_SYSTEMONE_API_KEY'],
      ['status-429', 'error', 'the decision queue is full, try again later (retry after 1 s)'],
      ['status-503', 'error', 'Loading model'],
    ],
    refusedKey: 'systemone refused the key in SYSTEM1_SYSTEMONE_API_KEY',
    health: { detail: 'System One server up with its model loaded', route: '/health' },
    refusedSettings: [
      [
        'a non-loopback endpoint without allow_remote',
        'endpoint = "http://gpu-box.lan:8790"',
        'providers.systemone.endpoint',
        'set allow_remote = true',
      ],
      ['an empty model', 'model = ""', 'providers.systemone.model', 'must be a non-empty string'],
      ['an unknown setting', 'alias = "d1"', 'providers.systemone.alias', 'is not a setting of provider systemone'],
    ],
  });
  const { start } = engine;

  it('names the model the server loaded, with the probabilities best first', async () => {
    engine.fake.probabilities = { 'rerun the pipeline': 0.2, 'block the merge': 0.8 };
    const { gateway } = await start();
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'systemone',
      decision: 'block the merge',
      confidence: 0.8,
      probabilities: { 'rerun the pipeline': 0.2, 'block the merge': 0.8 },
      rationale: 'systemone d1-3B: block the merge=0.8, rerun the pipeline=0.2',
    });
  });

  it('sends model when set (a router-mode llama-server picks the child by it)', async () => {
    const { gateway } = await start({ settings: 'model = "d1-3B"' });
    await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(engine.fake.requestsTo('/v1/systemone')[0].body).toMatchObject({ model: 'd1-3B' });
  });

  it("reports the server's refusal of more options than it takes, having declared no limit of its own", async () => {
    engine.fake.maxOptions = 3;
    const { gateway, app } = await start();
    expect(app.get(CapabilitiesService).capabilities().providers.systemone).not.toHaveProperty('max_options');
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

  it('is not healthy while the model is loading (503 Loading model), and decisions fail with the reason', async () => {
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
});
