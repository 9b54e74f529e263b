import { type TestingModule } from '@nestjs/testing';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { OpenAiFake } from '../../fakes/openai.fake';
import { gatewayApp } from '../../helpers/gateway-app';
import {
  CLIENT_FAULTS,
  DEFAULT_TOP,
  eventually,
  expectedShare,
  matching,
  type Outcome,
  REQUEST,
  REQUEST_PROMPT,
  SLOW_MS,
  SYSTEM_PROMPT,
  TIMEOUT_S,
} from './letter-chat.shared';
import { faultGateway } from './systemone.shared';

const SECRET = 'sk-test-OPENAI-SECRET-42';

describe('openai provider against an OpenAI-compatible fake', () => {
  /** Wants `Bearer SECRET` on every route, and quotes the key it was given in its 401 body. */
  const keyed = new OpenAiFake(SECRET);
  /** A local server without a key. */
  const open = new OpenAiFake();
  let app: TestingModule | undefined;
  let logs: string[];

  const start = async ({
    fake = keyed,
    settings = '',
    gateway = '',
    env = { SYSTEM1_OPENAI_API_KEY: SECRET } as Record<string, string>,
  } = {}) => {
    logs = [];
    const toml = `[gateway]\nprovider = "openai"\n${gateway}\n[providers.openai]\nendpoint = "${fake.url.origin}"\nmodel = "qwen3-4b"\n${settings}`;
    app = await gatewayApp({ toml, env, logs });
    return app.get(DecideService);
  };
  /** Nothing the gateway produced (reply, health, logs) may carry the key. */
  const expectNoSecret = (...produced: unknown[]) => {
    for (const value of produced) expect(JSON.stringify(value)).not.toContain(SECRET);
    expect(logs.join('\n')).not.toContain(SECRET);
  };

  beforeAll(() => Promise.all([keyed.start(), open.start()]));
  afterAll(() => Promise.all([keyed.stop(), open.stop()]));
  beforeEach(() => {
    for (const fake of [keyed, open]) {
      fake.requests.length = 0;
      Object.assign(fake, {
        fault: 'none',
        faultEverywhere: false,
        slowMs: SLOW_MS,
        letter: 'A',
        models: ['qwen3-4b'],
        errorStyle: 'error',
      });
      Object.assign(fake, {
        topLogprobs: undefined,
        answerToken: undefined,
        withoutLogprobs: false,
        nullLogprobs: false,
      });
    }
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const BODY = {
    model: 'qwen3-4b',
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: REQUEST_PROMPT },
    ],
    max_tokens: 1,
    temperature: 0,
    stream: false,
    logprobs: true,
    top_logprobs: 20,
  };

  it('sends POST /v1/chat/completions with the body of wire-contracts 5.1 and the key as a bearer token', async () => {
    const gateway = await start();
    expect(await gateway.decide(REQUEST)).toMatchObject({ status: 'decided' });
    expect(keyed.requests).toHaveLength(1);
    const [sent] = keyed.requests;
    expect([sent.method, sent.path]).toEqual(['POST', '/v1/chat/completions']);
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual(BODY);
    expectNoSecret(await gateway.decide(REQUEST));
  });

  it('sends no Authorization header when no key is set', async () => {
    const gateway = await start({ fake: open, env: {} });
    expect(await gateway.decide(REQUEST)).toMatchObject({ status: 'decided' });
    expect(open.requests[0].headers.authorization).toBeUndefined();
  });

  it('adds chat_template_kwargs only with disable_thinking, and does not double a /v1 in the endpoint', async () => {
    const gateway = await start({
      fake: open,
      env: { SYSTEM1_OPENAI_ENDPOINT: `${open.url.origin}/v1`, SYSTEM1_OPENAI_DISABLE_THINKING: 'true' },
    });
    await gateway.decide(REQUEST);
    expect(open.requests[0].path).toBe('/v1/chat/completions');
    expect(open.requests[0].body).toEqual({ ...BODY, chat_template_kwargs: { enable_thinking: false } });
    expect(app!.get(CapabilitiesService).capabilities().providers.openai).toEqual({
      max_options: 26,
      batch: false,
      probabilities: true,
      model: 'qwen3-4b',
      technique: 'letters',
      disable_thinking: true,
      questions: { types: ['choice', 'noul', 'score'], max_options: 26, max_levels: 26 },
    });
  });

  it('answers with the letter shares of choices[0].logprobs.content[0].top_logprobs', async () => {
    const gateway = await start();
    const first = expectedShare(DEFAULT_TOP, 'A');
    expect(await gateway.decide(REQUEST)).toMatchObject({
      status: 'decided',
      provider: 'openai',
      decision: 'rerun the pipeline',
      confidence: expect.closeTo(first, 12),
      probabilities: {
        'rerun the pipeline': expect.closeTo(first, 12),
        'block the merge': expect.closeTo(1 - first, 12),
      },
      rationale: 'openai qwen3-4b: A) rerun the pipeline=0.90, B) block the merge=0.10',
    });

    // vLLM writes -inf as -9999.0: that option gets 0.
    keyed.letter = 'B';
    keyed.topLogprobs = [
      { token: 'B', logprob: -0.01 },
      { token: 'A', logprob: -9999.0 },
    ];
    expect(await gateway.decide(REQUEST)).toMatchObject({
      decision: 'block the merge',
      confidence: 1,
      probabilities: { 'rerun the pipeline': 0, 'block the merge': 1 },
      rationale: 'openai qwen3-4b: B) block the merge=1.00',
    });
  });

  it('asks a yes/no question as A) yes, B) no', async () => {
    const gateway = await start();
    keyed.letter = 'B';
    const reply = await gateway.decide({ question: 'Is the build green?' });
    expect((keyed.requests[0].body as typeof BODY).messages[1].content).toBe(
      'Is the build green?\nA) yes\nB) no\nAnswer:',
    );
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'no',
      rationale: 'openai qwen3-4b: B) no=0.90, A) yes=0.10',
    });
  });

  it('never abstains itself: the gateway abstains below the threshold, without trying the fallback', async () => {
    const gateway = await start({ gateway: 'min_confidence = 0.95\nfallback = ["mock"]' });
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({
      status: 'abstained',
      decision: null,
      provider: 'openai',
      confidence: expect.closeTo(expectedShare(DEFAULT_TOP, 'A'), 12),
    });
    expect(reply.attempts.map((a) => a.provider)).toEqual(['openai']);
  });

  describe('faults, with mock as fallback and the key set', () => {
    const setups: Record<string, () => void> = {
      'object-style-500': () => Object.assign(keyed, { fault: 'status-500', errorStyle: 'object' }),
      'no-logprobs': () => (keyed.withoutLogprobs = true),
      'lm-studio-null-logprobs': () => Object.assign(keyed, { withoutLogprobs: true, nullLogprobs: true }),
      'thinking-token': () => (keyed.answerToken = '<think>'),
      'unknown-model': () => (keyed.models = ['llama-3.2-1b']),
    };
    const refused = /^the server refused the key in SYSTEM1_OPENAI_API_KEY \(HTTP 40[13] from 127\.0\.0\.1:\d+: /;
    it.each<[string, Outcome, string | RegExp]>([
      ...CLIENT_FAULTS,
      ['status-500', 'error', /^HTTP 500 from 127\.0\.0\.1:\d+: CUDA error: out of memory$/],
      ['object-style-500', 'error', /^HTTP 500 from 127\.0\.0\.1:\d+: CUDA error: out of memory$/],
      ['status-401', 'error', new RegExp(`${refused.source}Incorrect API key provided: \\[redacted\\]\\)$`)],
      ['status-403', 'error', new RegExp(`${refused.source}Forbidden\\)$`)],
      ['status-503', 'error', /^HTTP 503 from 127\.0\.0\.1:\d+: The engine is overloaded \(retry after 1 s\)$/],
      ['wrong-shape', 'malformed', /is not a chat completion \(no choices\)$/],
      [
        'no-logprobs',
        'malformed',
        /^the server returned no logprobs: LM Studio and Ollama's \/v1 layer return none; use vLLM, SGLang or llama-server/,
      ],
      ['lm-studio-null-logprobs', 'malformed', /^the server returned no logprobs: /],
      [
        'thinking-token',
        'malformed',
        'the model answered "<think>", not an option letter (a reasoning model? set disable_thinking = true)',
      ],
      ['unknown-model', 'error', /^HTTP 404 from 127\.0\.0\.1:\d+: The model `qwen3-4b` does not exist\.$/],
    ])(
      '%s: the attempt is %s with a detail to act on, mock answers, and the key shows nowhere',
      async (fault, outcome, detail) => {
        const gateway = await start({ gateway: faultGateway(outcome) });
        if (setups[fault]) setups[fault]();
        else keyed.fault = fault as OpenAiFake['fault'];
        const abandonedBefore = keyed.abandoned;
        const reply = await gateway.decide(REQUEST);
        expect(reply.attempts).toEqual([
          {
            provider: 'openai',
            outcome,
            latency_ms: expect.any(Number),
            detail: expect.stringMatching(matching(detail)),
          },
          { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
        ]);
        expect(reply).toMatchObject({ status: 'decided', provider: 'mock', decision: 'rerun the pipeline' });
        if (outcome === 'timeout') {
          // Cut off at timeout_s (the detail names it), and the engine cut off too: its request was closed.
          await eventually(
            () => keyed.abandoned > abandonedBefore,
            'the fake to see its request closed at the timeout',
          );
        }
        expect(keyed.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
        expect(logs.join('\n')).toContain(`openai ${outcome}`);
        expectNoSecret(reply);
      },
    );

    it('without a fallback, the error message names the refusal but not the key', async () => {
      const alone = await start({ gateway: `timeout_s = ${TIMEOUT_S}` });
      keyed.fault = 'status-401';
      const reply = await alone.decide(REQUEST);
      expect(reply).toMatchObject({
        status: 'error',
        error: { code: 'provider_error', message: expect.stringContaining('the server refused the key') },
      });
      expectNoSecret(reply);
    });
  });

  it('tells a server that wants a key from one that refuses it', async () => {
    const gateway = await start({ env: {} });
    const reply = await gateway.decide(REQUEST);
    expect(reply.attempts[0].detail).toMatch(
      /^the server wants a key: set SYSTEM1_OPENAI_API_KEY \(HTTP 401 .*: Incorrect API key provided: \(none\)\)$/,
    );
  });

  describe('settings', () => {
    const configErrors = async (settings: string, env: Record<string, string> = {}) => {
      logs = [];
      app = await gatewayApp({ toml: `[gateway]\nprovider = "openai"\n[providers.openai]\n${settings}`, env, logs });
      return app
        .get(ConfigStatus)
        .errors()
        .map((error) => [error.key, error.message]);
    };

    it.each([
      [
        'no model',
        'providers.openai.model',
        '',
        {},
        'is required: name the chat model to ask (the name the server serves',
      ],
      ['an empty model', 'providers.openai.model', 'model = ""', {}, 'is required'],
      [
        'another machine',
        'providers.openai.endpoint',
        'model = "m"\nendpoint = "https://api.example.com"',
        {},
        'points at api.example.com, which is not this machine; set allow_remote = true',
      ],
      [
        'an endpoint with credentials',
        'providers.openai.endpoint',
        'model = "m"\nendpoint = "http://user:pw@127.0.0.1:8000"',
        {},
        'must not carry credentials',
      ],
      [
        'a disable_thinking that is not a flag',
        'providers.openai.disable_thinking',
        'model = "m"\ndisable_thinking = "sometimes"',
        {},
        'must be true or false',
      ],
      [
        'a key in the file',
        'providers.openai.api_key',
        `model = "m"\napi_key = "${SECRET}"`,
        {},
        'is a secret: secrets are read from environment variables only (SYSTEM1_OPENAI_API_KEY)',
      ],
    ])('%s is a config error naming %s', async (_name, key, settings, env, words) => {
      const errors = await configErrors(settings, env as Record<string, string>);
      expect(errors).toContainEqual([key, expect.stringContaining(words)]);
      expect(errors.find(([k]) => k === key)![1]).toContain(key);
      const reply = await app!.get(DecideService).decide(REQUEST);
      expect(reply).toMatchObject({ status: 'error', error: { code: 'config_error' } });
      expectNoSecret(reply, errors);
    });

    it('accepts another machine with allow_remote = true', async () => {
      expect(await configErrors('model = "m"\nendpoint = "https://api.example.com"\nallow_remote = true')).toEqual([]);
    });
  });

  describe('health', () => {
    const health = async (options: Parameters<typeof start>[0] = {}) => {
      await start({ gateway: `timeout_s = ${TIMEOUT_S}`, ...options });
      const report = await app!.get(HealthService).health();
      expectNoSecret(report);
      return report;
    };

    it('is ok when GET /v1/models answers with the key, and says the model is listed', async () => {
      const report = await health();
      expect(report.status).toBe('ok');
      expect(report.providers[0]).toMatchObject({
        ok: true,
        detail: expect.stringMatching(/^OpenAI-compatible server at 127\.0\.0\.1:\d+, model "qwen3-4b" listed$/),
      });
      expect(keyed.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
        ['GET', '/v1/models', `Bearer ${SECRET}`],
      ]);
    });

    it('is ok but says so when the model is not listed (llama-server may list a file name)', async () => {
      keyed.models = ['/models/qwen3-4b-q4_k_m.gguf'];
      expect((await health()).providers[0]).toMatchObject({
        ok: true,
        detail: expect.stringContaining(
          'is up, but model "qwen3-4b" is not listed (serves: /models/qwen3-4b-q4_k_m.gguf)',
        ),
      });
    });

    it.each([
      [
        'a refused key',
        { env: { SYSTEM1_OPENAI_API_KEY: 'sk-test-WRONG-KEY-7' } },
        undefined,
        /^the server refused the key in SYSTEM1_OPENAI_API_KEY \(HTTP 401 .*\[redacted\]\)$/,
      ],
      ['a missing key', { env: {} }, undefined, /^the server wants a key: set SYSTEM1_OPENAI_API_KEY/],
      ['a server that hangs', {}, 'hang', new RegExp(`^timeout: no answer within ${TIMEOUT_S} s$`)],
      ['a server in trouble', {}, 'status-500', /^error: HTTP 500 from 127\.0\.0\.1:\d+: CUDA error/],
      [
        'something else on the port',
        {},
        'wrong-shape',
        /^malformed: GET \/v1\/models at .* did not answer \{"data": \[\.\.\.\]\}/,
      ],
    ] as const)('is not ok with %s, with a detail saying so', async (_name, options, fault, detail) => {
      if (fault) Object.assign(keyed, { fault, faultEverywhere: true });
      const report = await health(options as Parameters<typeof start>[0]);
      expect(report.status).toBe('down');
      expect(report.providers[0]).toMatchObject({ ok: false, detail: expect.stringMatching(detail) });
      expect(JSON.stringify(report)).not.toContain('sk-test-WRONG-KEY-7');
    });
  });
});
