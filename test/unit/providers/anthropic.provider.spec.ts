import { type TestingModule } from '@nestjs/testing';
import { PROCESS_ENV } from '../../../src/config/system1.config';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { type DecideResponseDto } from '../../../src/mcp/dto/decide-response.dto';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { AnthropicProviderDefinition } from '../../../src/providers/anthropic/anthropic.provider';
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { AnthropicFake, type AnthropicMode } from '../../fakes/anthropic.fake';
import { type Fault } from '../../fakes/fake-engine';
import { RecordingServer } from '../../fakes/recording-server';
import { eventually } from '../../helpers/eventually';
import { gatewayApp } from '../../helpers/gateway-app';

const KEY = 'sk-ant-test-SECRET-42';
const OPTIONS = ['rerun the pipeline', 'block the merge'];
const REQUEST = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: OPTIONS,
  context: { ci: '2 of 3 runs failed' },
  request_id: 'anthropic-1',
};

describe('anthropic provider, through the gateway, against the fake Anthropic API', () => {
  const fake = new AnthropicFake(KEY);
  const logs: string[] = [];
  let app: TestingModule | undefined;

  /** A gateway whose primary is the fake; `gateway` and `provider` are extra lines of those tables. */
  const start = async ({
    gateway = '',
    provider = '',
    env = { ANTHROPIC_API_KEY: KEY } as Record<string, string>,
    engine = fake,
  } = {}) => {
    const toml = `[gateway]\nprovider = "anthropic"\n${gateway}\n[providers.anthropic]\nendpoint = "${engine.url.origin}"\n${provider}`;
    app = await gatewayApp({ toml, env, logs });
    return app;
  };
  const decide = async (options: Parameters<typeof start>[0] = {}, request: object = REQUEST) =>
    (await start(options)).get(DecideService).decide(request);
  const messages = () => fake.requestsTo('/v1/messages');

  /** The key may only ever be a header on the wire: never in a reply, an attempt, an error or a log line. */
  const expectNoSecret = (...shown: unknown[]) => {
    for (const value of [...shown, ...logs]) expect(JSON.stringify(value)).not.toContain('SECRET-42');
  };

  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  afterEach(async () => {
    await app?.close();
    app = undefined;
    Object.assign(fake, {
      fault: 'none',
      faultEverywhere: false,
      slowMs: 5000,
      mode: 'normal',
      ranking: undefined,
      confidence: 0.8,
    });
    fake.requests.length = 0;
    logs.length = 0;
  });

  describe('decisions', () => {
    it('sends one POST /v1/messages with the key headers and the body of wire-contracts 3.1', async () => {
      const reply = await decide();
      expect(reply.status).toBe('decided');
      expect(fake.requests).toHaveLength(1);
      const [request] = messages();
      expect(request.method).toBe('POST');
      expect(request.headers).toMatchObject({
        'x-api-key': KEY,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      });
      expect(request.headers.authorization).toBeUndefined();
      expect(request.body).toEqual({
        model: 'claude-haiku-5-5',
        max_tokens: 256,
        temperature: 0,
        system: [
          {
            type: 'text',
            text: 'You make one quick judgement call. Options (exact names):\n- rerun the pipeline\n- block the merge\nAnswer only by calling the tool `choose`.',
            cache_control: { type: 'ephemeral' },
          },
        ],
        tools: [
          {
            name: 'choose',
            description: 'Report the decision: up to three option names, best first, and your confidence.',
            input_schema: {
              type: 'object',
              properties: {
                ranking: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: OPTIONS } },
                confidence: { type: 'number', minimum: 0, maximum: 1 },
              },
              required: ['ranking', 'confidence'],
            },
          },
        ],
        tool_choice: { type: 'tool', name: 'choose' },
        messages: [
          {
            role: 'user',
            content: 'Question: Rerun the flaky pipeline or block the merge?\nContext: {"ci":"2 of 3 runs failed"}',
          },
        ],
      });
      expectNoSecret(reply);
    });

    it('sends the configured model and max_tokens', async () => {
      fake.models['claude-opus-5'] = 'Claude Opus 5';
      try {
        expect(await decide({ provider: 'model = "claude-opus-5"\nmax_tokens = 512' })).toMatchObject({
          status: 'decided',
        });
        expect(messages()[0].body).toMatchObject({ model: 'claude-opus-5', max_tokens: 512 });
      } finally {
        delete fake.models['claude-opus-5'];
      }
    });

    it("answers with the model's first ranked option and its self-reported confidence, without probabilities", async () => {
      fake.ranking = ['block the merge', 'rerun the pipeline'];
      fake.confidence = 0.72;
      const reply = await decide();
      expect(reply).toMatchObject({
        status: 'decided',
        provider: 'anthropic',
        decision: 'block the merge',
        confidence: 0.72,
        probabilities: null,
        calibrated: false,
        rationale: 'anthropic claude-haiku-5-5 (self-reported confidence): block the merge > rerun the pipeline',
        attempts: [{ provider: 'anthropic', outcome: 'ok', latency_ms: expect.any(Number), detail: null }],
      });
    });

    it('asks a yes/no question with the options yes and no, and no Context line without a context', async () => {
      fake.ranking = ['no'];
      fake.confidence = 0.95;
      const reply = await decide({}, { question: 'Is `git status` destructive?' });
      expect(reply).toMatchObject({ status: 'decided', decision: 'no', confidence: 0.95 });
      const body = messages()[0].body as {
        tools: { input_schema: { properties: { ranking: { items: { enum: string[] } } } } }[];
        messages: unknown;
      };
      expect(body.tools[0].input_schema.properties.ranking.items.enum).toEqual(['yes', 'no']);
      expect(body.messages).toEqual([{ role: 'user', content: 'Question: Is `git status` destructive?' }]);
    });

    it('lets the gateway abstain below the threshold on the self-reported confidence', async () => {
      fake.confidence = 0.55;
      const reply = await decide({ gateway: 'min_confidence = 0.7' });
      expect(reply).toMatchObject({ status: 'abstained', decision: null, confidence: 0.55, provider: 'anthropic' });
      expect(reply.rationale).toContain('below the threshold 0.7');
    });

    it('abstains when the model refuses (stop_reason refusal), without trying the fallback', async () => {
      fake.mode = 'refusal';
      const reply = await decide({ gateway: 'fallback = ["mock"]' });
      expect(reply).toMatchObject({ status: 'abstained', decision: null, provider: 'anthropic' });
      expect(reply.rationale).toContain('declined to answer');
      expect(reply.attempts.map((a) => a.outcome)).toEqual(['abstained']);
    });
  });

  describe('failures, each followed by the fallback', () => {
    const expectFellBack = (reply: DecideResponseDto, outcome: string, detail: string | RegExp, engine = fake) => {
      const detailMatcher =
        typeof detail === 'string' ? expect.stringContaining(detail) : expect.stringMatching(detail);
      expect(reply.attempts).toEqual([
        { provider: 'anthropic', outcome, latency_ms: expect.any(Number), detail: detailMatcher },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock', decision: OPTIONS[0] });
      // The failure was logged, so the secret check below looked at real lines.
      expect(logs.some((line) => line.includes(`anthropic ${outcome}`))).toBe(true);
      expect(engine.requestsTo('/v1/messages')[0].headers['x-api-key']).toBe(KEY);
      expectNoSecret(reply);
    };

    it.each<[Fault, string, string | RegExp]>([
      ['status-500', 'error', 'the Anthropic API failed (HTTP 500)'],
      ['status-401', 'error', 'the Anthropic API refused the key in ANTHROPIC_API_KEY (authentication_error)'],
      ['status-403', 'error', 'permission_error'],
      ['status-429', 'error', 'rate limiting this key (rate_limit_error): HTTP 429 from 127.0.0.1'],
      ['status-503', 'error', 'the Anthropic API failed (HTTP 503)'],
      ['reset', 'error', 'reset the connection'],
      // The shared client names a body cut off mid-way by the socket error it sees.
      ['truncated', 'error', /the reply was cut off|reset the connection/],
      ['html-502', 'error', 'the Anthropic API failed (HTTP 502)'],
      ['huge', 'error', 'larger than 1048576 bytes'],
      ['redirect', 'error', 'redirect refused: HTTP 302'],
      ['non-json', 'malformed', 'is not JSON (text/plain'],
      ['wrong-shape', 'malformed', 'the reply is not a Messages API message'],
    ])('%s: %s with "%s"', async (fault, outcome, detail) => {
      fake.fault = fault;
      expectFellBack(await decide({ gateway: 'fallback = ["mock"]' }), outcome, detail);
    });

    it('says when to retry after a 429', async () => {
      fake.fault = 'status-429';
      const reply = await decide({ gateway: 'fallback = ["mock"]' });
      expect(reply.attempts[0].detail).toContain('(retry after 1 s)');
    });

    it.each<[AnthropicMode, Partial<AnthropicFake>, string, string]>([
      [
        'overloaded',
        {},
        'error',
        'the Anthropic API is overloaded (overloaded_error): try again later or configure a fallback: HTTP 529',
      ],
      [
        'max-tokens',
        {},
        'malformed',
        'the reply stopped at max_tokens (256) before the `choose` call was complete; raise providers.anthropic.max_tokens',
      ],
      ['outside-enum', {}, 'malformed', 'the model ranked "merge anyway", which is not one of the options'],
      ['confidence-out-of-range', {}, 'malformed', "the `choose` call's confidence 1.7 is not a number in [0, 1]"],
      ['normal', { confidence: undefined }, 'malformed', "the `choose` call's confidence is missing"],
      ['normal', { ranking: [] }, 'malformed', 'the `choose` call has no ranking'],
      [
        'normal',
        { ranking: ['rerun the pipeline', 'block the merge', 'rerun the pipeline', 'block the merge'] },
        'malformed',
        'ranks 4 names, more than 3',
      ],
      ['no-tool-use', {}, 'malformed', 'the reply has no `choose` tool call'],
    ])('model reply %s %o: %s with "%s"', async (mode, tweak, outcome, detail) => {
      Object.assign(fake, { mode }, tweak);
      expectFellBack(await decide({ gateway: 'fallback = ["mock"]' }), outcome, detail);
    });

    it.each<Fault>(['slow', 'hang', 'hang-after-headers', 'stall-body'])(
      '%s: times out at timeout_s, not at the fault, and the fallback answers',
      async (fault) => {
        // A fresh engine, so no kept-alive connection of an earlier test is counted below.
        const engine = Object.assign(new AnthropicFake(KEY), { fault, slowMs: 5000 });
        await engine.start();
        try {
          const reply = await decide({ gateway: 'timeout_s = 0.3\nfallback = ["mock"]', engine });
          expectFellBack(reply, 'timeout', 'no answer within 0.3 s', engine);
          // Cut off at timeout_s (the detail names it), by real cancellation, not by the fault's answer: the
          // aborted request closed its connection, leaving nothing running.
          await eventually(
            () => engine.abandoned === 1 && openConnections(engine) === 0,
            'the fake to see its request closed at the timeout',
          );
        } finally {
          await engine.stop();
        }
      },
    );

    it('sends nothing to where a redirect points: the key stays with the endpoint', async () => {
      const target = new RecordingServer();
      fake.redirectTo = `${(await target.start()).origin}/v1/messages`;
      try {
        fake.fault = 'redirect';
        const reply = await decide();
        expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
        expect(target.hits).toEqual([]);
        expectNoSecret(reply);
      } finally {
        await target.stop();
      }
    });

    it('never sends a loopback call through a system proxy', async () => {
      const proxy = new RecordingServer();
      const saved = { HTTP_PROXY: process.env.HTTP_PROXY, HTTPS_PROXY: process.env.HTTPS_PROXY };
      const url = (await proxy.start()).origin;
      Object.assign(process.env, { HTTP_PROXY: url, HTTPS_PROXY: url });
      try {
        expect(await decide()).toMatchObject({ status: 'decided', provider: 'anthropic' });
        expect(proxy.hits).toEqual([]);
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
        await proxy.stop();
      }
    });
  });

  describe('the key', () => {
    it('is read from ANTHROPIC_API_KEY only, on every call: without it the attempt fails and says what to set', async () => {
      await start({ gateway: 'fallback = ["mock"]', env: { SYSTEM1_ANTHROPIC_API_KEY: KEY } });
      const gateway = app!.get(DecideService);
      const without = await gateway.decide(REQUEST);
      expect(without.attempts[0]).toMatchObject({
        provider: 'anthropic',
        outcome: 'error',
        detail: expect.stringContaining('ANTHROPIC_API_KEY is not set'),
      });
      expect(without).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(fake.requests).toEqual([]);

      // A key exported later takes effect on the next call, with no restart.
      (app!.get(PROCESS_ENV) as Record<string, string>).ANTHROPIC_API_KEY = KEY;
      expect(await gateway.decide(REQUEST)).toMatchObject({ status: 'decided', provider: 'anthropic' });
      expect(messages()[0].headers['x-api-key']).toBe(KEY);
      expectNoSecret(without);
    });

    it('refused by the API (401 authentication_error) says so without showing either key', async () => {
      const reply = await decide({ env: { ANTHROPIC_API_KEY: 'sk-ant-wrong-SECRET-42' } });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.attempts[0].detail).toContain('refused the key in ANTHROPIC_API_KEY');
      expect(reply.attempts[0].detail).toContain('invalid x-api-key');
      expectNoSecret(reply);
    });
  });

  describe('settings', () => {
    it.each([
      ['endpoint = "http://api.example.com"', 'providers.anthropic.endpoint', 'must use https'],
      ['endpoint = "ftp://127.0.0.1"', 'providers.anthropic.endpoint', 'must use http or https'],
      ['max_tokens = 10', 'providers.anthropic.max_tokens', 'an integer in [64, 8192]'],
      ['model = ""', 'providers.anthropic.model', 'a non-empty string'],
      ['allow_remote = true', 'providers.anthropic.allow_remote', 'is not a setting of provider anthropic'],
    ])('%s is a config error naming %s', async (line, key, problem) => {
      const toml = `[gateway]\nprovider = "anthropic"\n[providers.anthropic]\n${line}`;
      app = await gatewayApp({ toml, env: { ANTHROPIC_API_KEY: KEY }, logs });
      const errors = app.get(ConfigStatus).errors();
      expect(errors).toEqual([expect.objectContaining({ key })]);
      expect(errors[0].message).toContain(problem);
      const reply = await app.get(DecideService).decide(REQUEST);
      expect(reply).toMatchObject({ status: 'error', error: { code: 'config_error' } });
      expect(reply.error!.message).toContain(key);
    });

    it('accepts an https endpoint on another machine at configure time, making no request', async () => {
      const toml = '[gateway]\nprovider = "anthropic"\n[providers.anthropic]\nendpoint = "https://api.example.com"';
      app = await gatewayApp({ toml, env: { ANTHROPIC_API_KEY: KEY } });
      expect(app.get(ConfigStatus).errors()).toEqual([]);
      expect(app.get(CapabilitiesService).capabilities().providers.anthropic).toEqual({
        max_options: 256,
        batch: false,
        probabilities: false,
        model: 'claude-haiku-5-5',
        confidence: 'self-reported by the model',
        remote: true,
        // No probabilities, so no score (it needs a distribution); choices carry the candidates.
        questions: { types: ['choice', 'noul'], max_options: 256 },
      });
    });

    it('refuses a key in the config file without echoing it', async () => {
      const toml = `[gateway]\nprovider = "anthropic"\n[providers.anthropic]\napi_key = "${KEY}"`;
      app = await gatewayApp({ toml, env: {} });
      const errors = app.get(ConfigStatus).errors();
      expect(errors.map((e) => e.key)).toContain('providers.anthropic.api_key');
      expectNoSecret(errors);
    });
  });

  describe('health', () => {
    const probe = async (options: Parameters<typeof start>[0] = {}) =>
      (await (await start(options)).get(HealthService).health()).providers[0];

    it('is ok when GET /v1/models/{model} knows the model, and names it', async () => {
      const result = await probe();
      expect(result).toMatchObject({
        name: 'anthropic',
        ok: true,
        detail: expect.stringContaining('claude-haiku-5-5 (Claude Haiku 5.5) is available'),
      });
      expect(fake.requests).toEqual([
        expect.objectContaining({
          method: 'GET',
          path: '/v1/models/claude-haiku-5-5',
          headers: expect.objectContaining({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' }),
        }),
      ]);
    });

    it.each([
      [
        'an unknown model',
        { provider: 'model = "claude-nope-1"' },
        'does not know model "claude-nope-1": set providers.anthropic.model',
      ],
      [
        'a refused key',
        { env: { ANTHROPIC_API_KEY: 'sk-ant-wrong-SECRET-42' } },
        'refused the key in ANTHROPIC_API_KEY',
      ],
      ['no key', { env: {} }, 'ANTHROPIC_API_KEY is not set'],
    ])('is not ok with %s, and says why', async (_name, options, detail) => {
      const result = await probe(options);
      expect(result).toMatchObject({ ok: false, detail: expect.stringContaining(detail) });
      expectNoSecret(result);
    });

    it('is not ok when the API fails, and times out at timeout_s', async () => {
      fake.faultEverywhere = true;
      fake.fault = 'status-500';
      expect(await probe()).toMatchObject({
        ok: false,
        detail: expect.stringContaining('the Anthropic API failed (HTTP 500)'),
      });
      await app!.close();
      fake.fault = 'hang';
      expect(await probe({ gateway: 'timeout_s = 0.3' })).toMatchObject({
        ok: false,
        detail: 'timeout: no answer within 0.3 s',
      });
    });
  });

  describe('a batch', () => {
    it('asks each question in its own call and answers each by id', async () => {
      const definition = new AnthropicProviderDefinition(new EngineHttpClient());
      const provider = definition.create(
        { endpoint: fake.url.origin, model: 'claude-haiku-5-5', max_tokens: 256 },
        { env: { ANTHROPIC_API_KEY: KEY } },
      );
      const { answers } = await provider.evaluate(
        {
          state: { branch: 'main' },
          questions: {
            a: { type: 'choice', instructions: 'Which first?', criteria: { lint: null, test: null } },
            b: { type: 'choice', instructions: 'Ship it?', criteria: { yes: null, no: null } },
          },
        },
        { signal: new AbortController().signal, requestId: 'batch-1' },
      );
      expect(answers).toEqual({
        a: expect.objectContaining({ choice: 'lint', probabilities: { lint: 0.8, test: expect.closeTo(0.2, 6) } }),
        b: expect.objectContaining({ choice: 'yes', probabilities: { yes: 0.8, no: expect.closeTo(0.2, 6) } }),
      });
      expect(
        messages()
          .map((r) => (r.body as { messages: { content: string }[] }).messages[0].content)
          .sort(),
      ).toEqual([
        'Question: Ship it?\nContext: {"branch":"main"}',
        'Question: Which first?\nContext: {"branch":"main"}',
      ]);
    });
  });
});

/** The fake's open client connections (the base class keeps them private to close them on stop). */
function openConnections(fake: AnthropicFake): number {
  return (fake['sockets' as keyof AnthropicFake] as unknown as Set<unknown>).size;
}
