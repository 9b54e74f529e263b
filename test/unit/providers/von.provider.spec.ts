import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { gatewayApp } from '../../helpers/gateway-app';
import { VonFake } from '../../fakes/von.fake';
import {
  itHandlesEachFault,
  type FaultExpectation,
  engineUnderTest,
  OPTIONS,
  QUESTION,
  TIMEOUT_FAULTS,
  TRANSPORT_FAULTS,
} from './systemone.shared';

const SECRET = 'sk-test-VON-SECRET-42';
const KEY_ENV = { SYSTEM1_VON_API_KEY: SECRET };

describe('von provider against a fake von serve', () => {
  const engine = engineUnderTest('von', () => new VonFake());
  const { start } = engine;

  it('sends the options as a {option: option} map with the model hint, the context as state and the key as a bearer', async () => {
    engine.fake.apiKey = SECRET;
    const { gateway } = await start({ env: KEY_ENV });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS, context: { branch: 'main' } });
    const [sent] = engine.fake.requestsTo('/v1/systemone');
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.body).toEqual({
      model: 'von-1.3',
      state: { branch: 'main' },
      questions: {
        decision: {
          type: 'choice',
          instructions: QUESTION,
          criteria: { 'rerun the pipeline': 'rerun the pipeline', 'block the merge': 'block the merge' },
        },
      },
    });
    expect(reply).toMatchObject({ status: 'decided', provider: 'von', decision: 'rerun the pipeline' });
  });

  it("takes confidence as probabilities[choice], not Von's margin, and names the version that served", async () => {
    engine.fake.probabilities = { 'rerun the pipeline': 0.3, 'block the merge': 0.7 };
    const { gateway } = await start();
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(engine.fake.requestsTo('/v1/systemone')[0].headers.authorization).toBeUndefined();
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'block the merge',
      confidence: 0.7,
      probabilities: { 'rerun the pipeline': 0.3, 'block the merge': 0.7 },
      rationale: 'von von-1.3.0: block the merge=0.7, rerun the pipeline=0.3',
    });
  });

  it('asks a yes/no question as the choice between "yes" and "no", with {} as state when there is no context', async () => {
    engine.fake.pick = 'no';
    const { gateway } = await start();
    const reply = await gateway.decide({ question: 'Is rm -rf / safe?' });
    expect(engine.fake.requestsTo('/v1/systemone')[0].body).toEqual({
      model: 'von-1.3',
      state: {},
      questions: {
        decision: { type: 'choice', instructions: 'Is rm -rf / safe?', criteria: { yes: 'yes', no: 'no' } },
      },
    });
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'no',
      confidence: 0.6667,
      probabilities: { yes: 0.3333, no: 0.6667 },
    });
  });

  it('declares one pass per batch, probabilities and no option limit of its own', async () => {
    const { app } = await start();
    expect(app.get(CapabilitiesService).capabilities().providers.von).toEqual({
      batch: true,
      probabilities: true,
      model: 'von-1.3',
      questions: { types: ['choice', 'noul', 'score'], max_levels: 10 },
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

  describe('faults', () => {
    const VON_FAULTS: FaultExpectation[] = [
      ...TIMEOUT_FAULTS,
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'HTTP 401'],
      ['status-429', 'error', '(retry after 1 s)'],
      ['status-503', 'error', 'HTTP 503'],
      ...TRANSPORT_FAULTS,
    ];

    beforeEach(() => (engine.fake.apiKey = SECRET));
    itHandlesEachFault(engine, VON_FAULTS, { provider: 'von', secret: SECRET, env: KEY_ENV });

    it('says which variable holds the refused key', async () => {
      engine.fake.apiKey = 'the-real-key';
      const { gateway, logs } = await start({ env: KEY_ENV });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.error!.message).toContain('HTTP 401');
      expect(reply.error!.message).toContain('von refused the key in SYSTEM1_VON_API_KEY');
      expect(JSON.stringify(reply) + logs.join('\n')).not.toContain(SECRET);
    });
  });

  describe('health', () => {
    it('is ok when /health answers 200 JSON, and sends the key', async () => {
      const { health } = await start({ env: KEY_ENV });
      const report = await health.health();
      expect(report.providers[0]).toMatchObject({ name: 'von', ok: true, detail: 'von serve up' });
      expect(engine.fake.requestsTo('/health')[0].headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(JSON.stringify(report)).not.toContain(SECRET);
    });

    it.each([
      ['down', async () => engine.fake.stop(), 'connection refused'],
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
    ])('is not ok when von serve is %s, with the reason', async (_name, breakIt, detail) => {
      const { health } = await start();
      await breakIt();
      const report = await health.health();
      expect(report.status).toBe('down');
      expect(report.providers[0]).toMatchObject({ ok: false, detail: expect.stringContaining(detail) });
    });
  });

  describe('settings', () => {
    it.each([
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
    ])('refuses %s as a config error naming the key', async (_name, line, key, words) => {
      const app = await gatewayApp({ toml: `[gateway]\nprovider = "von"\n[providers.von]\n${line}` });
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
