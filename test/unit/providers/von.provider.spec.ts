import { VonProviderDefinition } from '../../../src/providers/system-one/von.provider';
import { VonFake } from '../../fakes/von.fake';
import { OPTIONS, QUESTION } from './systemone.shared';
import { selfDescribed, systemOneDialectSuite } from './systemone-dialect.suite';

describe('von provider against a fake von serve', () => {
  const engine = systemOneDialectSuite({
    definition: VonProviderDefinition,
    fake: () => new VonFake(),
    reach: 'local',
    wire: { model: 'von-1.3', criteria: selfDescribed },
    decimals: 4,
    capabilities: {
      batch: true,
      probabilities: true,
      model: 'von-1.3',
      questions: { types: ['choice', 'noul', 'score'], max_levels: 10 },
    },
    defaults: { endpoint: 'http://127.0.0.1:8777', allow_remote: false, model: 'von-1.3' },
    statusFaults: [
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'HTTP 401'],
      ['status-429', 'error', '(retry after 1 s)'],
      ['status-503', 'error', 'HTTP 503'],
    ],
    refusedKey: 'von refused the key in SYSTEM1_VON_API_KEY',
    health: { detail: 'von serve up', route: '/health' },
    refusedSettings: [
      [
        'a non-loopback endpoint without allow_remote',
        'endpoint = "http://192.168.1.20:8777"',
        'providers.von.endpoint',
        'set allow_remote = true',
      ],
      ['an empty model', 'model = ""', 'providers.von.model', 'must be a non-empty string'],
      [
        'an allow_remote that is not a flag',
        'allow_remote = "yes"',
        'providers.von.allow_remote',
        'must be true or false',
      ],
    ],
  });
  const { start } = engine;

  it("takes confidence as probabilities[choice], not Von's margin, and names the version that served", async () => {
    engine.fake.probabilities = { 'rerun the pipeline': 0.3, 'block the merge': 0.7 };
    const { gateway } = await start();
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'block the merge',
      confidence: 0.7,
      probabilities: { 'rerun the pipeline': 0.3, 'block the merge': 0.7 },
      rationale: 'von von-1.3.0: block the merge=0.7, rerun the pipeline=0.3',
    });
  });

  it('reports a reply that breaks the protocol as malformed_response, naming the question', async () => {
    engine.fake.reshape = (body) => ({
      ...body,
      answers: { other: (body.answers as Record<string, unknown>).decision },
    });
    const { gateway } = await start();
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply).toMatchObject({ status: 'error', error: { code: 'malformed_response' } });
    expect(reply.error!.message).toContain('von answer to "decision": missing from the reply');
  });

  it.each([
    [
      'answering text',
      async () => ((engine.fake.fault = 'non-json'), (engine.fake.faultEverywhere = true)),
      'malformed: the reply from 127.0.0.1',
    ],
    [
      'failing',
      async () => ((engine.fake.fault = 'status-500'), (engine.fake.faultEverywhere = true)),
      'error: HTTP 500',
    ],
  ])('is not healthy when von serve is %s, with the reason', async (_name, breakIt, detail) => {
    const { health } = await start();
    await breakIt();
    const report = await health.health();
    expect(report.status).toBe('down');
    expect(report.providers[0]).toMatchObject({ ok: false, detail: expect.stringContaining(detail) });
  });
});
