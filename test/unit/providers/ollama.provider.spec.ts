import { type TestingModule } from '@nestjs/testing';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { ProviderRegistry } from '../../../src/decisions/registry/provider-registry.service';
import { OllamaFake } from '../../fakes/ollama.fake';
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

/** Ollama takes no key: one set in the environment must never be sent or shown. */
const STRAY_SECRET = 'sk-test-OLLAMA-SECRET-42';

describe('ollama provider against the Ollama fake', () => {
  const fake = new OllamaFake();
  let app: TestingModule | undefined;
  let logs: string[];

  const start = async (settings = '', gateway = '', env: Record<string, string> = {}) => {
    logs = [];
    const toml = `[gateway]\nprovider = "ollama"\n${gateway}\n[providers.ollama]\nendpoint = "${fake.url.origin}"\nmodel = "gemma4:e4b"\n${settings}`;
    app = await gatewayApp({ toml, env: { SYSTEM1_OLLAMA_API_KEY: STRAY_SECRET, ...env }, logs });
    return app.get(DecideService);
  };

  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    Object.assign(fake, {
      fault: 'none',
      faultEverywhere: false,
      slowMs: SLOW_MS,
      letter: 'A',
      version: '0.12.11',
      models: ['gemma4:e4b'],
    });
    Object.assign(fake, { topLogprobs: undefined, answerToken: undefined, withoutLogprobs: false });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('sends one POST /api/chat with exactly the body of wire-contracts 2.1, and no key', async () => {
    const gateway = await start();
    await gateway.decide(REQUEST);
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/api/chat');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(STRAY_SECRET);
    expect(sent.body).toEqual({
      model: 'gemma4:e4b',
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: REQUEST_PROMPT },
      ],
      stream: false,
      think: false,
      options: { temperature: 0, num_predict: 1, seed: 0 },
      logprobs: true,
      top_logprobs: 20,
    });
  });

  it('answers with the letter shares of the top logprobs as probabilities', async () => {
    const gateway = await start();
    const first = expectedShare(DEFAULT_TOP, 'A');
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'ollama',
      decision: 'rerun the pipeline',
      confidence: expect.closeTo(first, 12),
      probabilities: {
        'rerun the pipeline': expect.closeTo(first, 12),
        'block the merge': expect.closeTo(1 - first, 12),
      },
      rationale: `ollama gemma4:e4b: A) rerun the pipeline=${first.toFixed(2)}, B) block the merge=${(1 - first).toFixed(2)}`,
    });
    expect(first).toBeCloseTo(0.9009, 3);

    fake.letter = 'B';
    fake.topLogprobs = [
      { token: 'B', logprob: -0.105 },
      { token: 'A', logprob: -2.31 },
      { token: ' B', logprob: -6.2 },
    ];
    expect(await gateway.decide(REQUEST)).toMatchObject({
      decision: 'block the merge',
      rationale: 'ollama gemma4:e4b: B) block the merge=0.90, A) rerun the pipeline=0.10',
    });
  });

  it('asks a yes/no question as the two options yes and no', async () => {
    const gateway = await start();
    fake.letter = 'B';
    const reply = await gateway.decide({ question: 'Is `rm -rf /` safe?' });
    expect((fake.requests[0].body as { messages: { content: string }[] }).messages[1].content).toBe(
      'Is `rm -rf /` safe?\nA) yes\nB) no\nAnswer:',
    );
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'no',
      probabilities: { yes: expect.any(Number), no: expect.any(Number) },
    });
    expect(reply.rationale).toMatch(/^ollama gemma4:e4b: B\) no=0\.90, A\) yes=0\.10$/);
  });

  it('never abstains itself: the gateway abstains below the threshold with the letter shares, no fallback', async () => {
    const gateway = await start('', 'min_confidence = 0.95\nfallback = ["mock"]');
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({
      status: 'abstained',
      decision: null,
      provider: 'ollama',
      confidence: expect.closeTo(expectedShare(DEFAULT_TOP, 'A'), 12),
    });
    expect(reply.rationale).toContain('below the threshold 0.95; ollama gemma4:e4b: A) rerun the pipeline=0.90');
    expect(reply.attempts.map((a) => a.provider)).toEqual(['ollama']);
  });

  it('asks the questions of a batch in parallel, one call each, all ended by the one signal', async () => {
    await start();
    const provider = app!.get(ProviderRegistry).chain()[0].provider!;
    const questions = Object.fromEntries(
      ['q1', 'q2', 'q3'].map((id) => [id, { type: 'noul' as const, instructions: `Question ${id}?` }]),
    );
    expect(
      Object.keys(
        (await provider.evaluate({ questions }, { signal: new AbortController().signal, requestId: 'b' })).answers,
      ),
    ).toEqual(['q1', 'q2', 'q3']);

    fake.requests.length = 0;
    fake.fault = 'hang';
    const controller = new AbortController();
    const pending = provider.evaluate({ questions }, { signal: controller.signal, requestId: 'b' });
    await eventually(() => fake.requests.length === 3, 'three requests at the fake');
    controller.abort(new Error('deadline'));
    await expect(pending).rejects.toThrow('deadline');
  });

  it('states its limits and refuses a 27th option so a fallback answers', async () => {
    const gateway = await start('', 'fallback = ["mock"]');
    expect(app!.get(CapabilitiesService).capabilities().providers.ollama).toEqual({
      max_options: 26,
      batch: false,
      probabilities: true,
      model: 'gemma4:e4b',
      technique: 'letters',
      min_version: '0.12.11',
      questions: { types: ['choice', 'noul', 'score'], max_options: 26, max_levels: 26 },
    });
    const options = Array.from({ length: 27 }, (_, i) => `tool ${i}`);
    const reply = await gateway.decide({ question: 'Which tool?', options });
    expect(reply.attempts[0]).toMatchObject({
      provider: 'ollama',
      outcome: 'error',
      detail: 'refused: ollama takes at most 26 candidates per choice question; "decision" has 27',
    });
    expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
    expect(fake.requests).toHaveLength(0);
  });

  describe('faults, with mock as fallback', () => {
    const setups: Record<string, () => void> = {
      'no-logprobs': () => (fake.withoutLogprobs = true),
      'non-letter': () => (fake.answerToken = 'Sure'),
      'not-pulled': () => (fake.models = ['llama3.2:latest']),
    };
    it.each<[string, Outcome, string | RegExp]>([
      ...CLIENT_FAULTS,
      ['status-500', 'error', /^HTTP 500 from 127\.0\.0\.1:\d+: llama runner process has terminated: exit status 2$/],
      ['status-401', 'error', /^HTTP 401 from 127\.0\.0\.1:\d+: unauthorized$/],
      [
        'status-503',
        'error',
        /^HTTP 503 from 127\.0\.0\.1:\d+: server busy, please try again\. maximum pending requests exceeded \(retry after 1 s\)$/,
      ],
      ['wrong-shape', 'malformed', /is not an Ollama chat response \(no message\)/],
      [
        'no-logprobs',
        'malformed',
        'the server returned no logprobs: Ollama returns them from 0.12.11 on; upgrade Ollama',
      ],
      ['non-letter', 'malformed', 'the model answered "Sure", not an option letter'],
      [
        'not-pulled',
        'error',
        /^model "gemma4:e4b" is not pulled into Ollama: run `ollama pull gemma4:e4b` \(HTTP 404 from 127\.0\.0\.1:\d+: model "gemma4:e4b" not found, try pulling it first\)$/,
      ],
    ])('%s: the attempt is %s with a detail to act on, and mock answers', async (fault, outcome, detail) => {
      const gateway = await start('', faultGateway(outcome));
      if (setups[fault]) setups[fault]();
      else fake.fault = fault as OllamaFake['fault'];
      const abandonedBefore = fake.abandoned;
      const reply = await gateway.decide(REQUEST);
      expect(reply.attempts).toEqual([
        {
          provider: 'ollama',
          outcome,
          latency_ms: expect.any(Number),
          detail: expect.stringMatching(matching(detail)),
        },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock', decision: 'rerun the pipeline' });
      if (outcome === 'timeout') {
        // Cut off at timeout_s (the detail names it), and the engine cut off too: its request was closed.
        await eventually(() => fake.abandoned > abandonedBefore, 'the fake to see its request closed at the timeout');
      }
      expect(fake.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
      expect(JSON.stringify(reply)).not.toContain(STRAY_SECRET);
      expect(logs.join('\n')).not.toContain(STRAY_SECRET);
      expect(logs.join('\n')).toContain(`ollama ${outcome}`);
    });
  });

  it.each([
    ['status-503', 'provider_error'],
    ['hang', 'provider_timeout'],
    ['wrong-shape', 'malformed_response'],
  ])('without a fallback, %s is the error %s', async (fault, code) => {
    const gateway = await start('', `timeout_s = ${TIMEOUT_S}`);
    fake.fault = fault as OllamaFake['fault'];
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({
      status: 'error',
      decision: null,
      error: { code, message: expect.stringContaining('every provider failed: ollama') },
    });
  });

  describe('settings', () => {
    const configErrors = async (settings: string, env: Record<string, string> = {}) => {
      logs = [];
      app = await gatewayApp({ toml: `[gateway]\nprovider = "ollama"\n[providers.ollama]\n${settings}`, env, logs });
      return app
        .get(ConfigStatus)
        .errors()
        .map((error) => [error.key, error.message]);
    };

    it.each([
      [
        'no model',
        'providers.ollama.model',
        'endpoint = "http://127.0.0.1:11434"',
        {},
        'is required: name the chat model to ask (see `ollama list`',
      ],
      ['an empty model', 'providers.ollama.model', 'model = "  "', {}, 'is required'],
      [
        'a model emptied by the environment',
        'providers.ollama.model',
        'model = "gemma4:e4b"',
        { SYSTEM1_OLLAMA_MODEL: '' },
        'is required',
      ],
      [
        'another machine',
        'providers.ollama.endpoint',
        'model = "m"\nendpoint = "http://192.168.1.20:11434"',
        {},
        'points at 192.168.1.20, which is not this machine; set allow_remote = true',
      ],
      [
        'a non-http endpoint',
        'providers.ollama.endpoint',
        'model = "m"\nendpoint = "unix:///run/ollama.sock"',
        {},
        'must use http or https',
      ],
      ['a key in the file', 'providers.ollama.api_key', 'model = "m"\napi_key = "sk-in-file"', {}, 'is a secret'],
    ])('%s is a config error naming %s', async (_name, key, settings, env, words) => {
      const errors = await configErrors(settings, env as Record<string, string>);
      expect(errors).toContainEqual([key, expect.stringContaining(words)]);
      expect(errors.find(([k]) => k === key)![1]).toContain(key);
      const reply = await app!.get(DecideService).decide(REQUEST);
      expect(reply).toMatchObject({ status: 'error', error: { code: 'config_error' } });
      expect(JSON.stringify(reply)).not.toContain('sk-in-file');
    });

    it('accepts another machine with allow_remote = true', async () => {
      expect(await configErrors('model = "m"\nendpoint = "http://192.168.1.20:11434"\nallow_remote = true')).toEqual(
        [],
      );
    });
  });

  describe('health', () => {
    const health = async (gatewayLines = '') => {
      await start('', gatewayLines);
      return app!.get(HealthService).health();
    };

    it('is ok with the version and the installed model, asking /api/version and /api/tags', async () => {
      const report = await health();
      expect(report.status).toBe('ok');
      expect(report.providers[0]).toMatchObject({
        name: 'ollama',
        ok: true,
        detail: expect.stringMatching(/^Ollama 0\.12\.11 at 127\.0\.0\.1:\d+, model "gemma4:e4b" installed$/),
      });
      expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /api/tags', 'GET /api/version']);
    });

    it('matches a model without a tag to its :latest', async () => {
      fake.models = ['llama3.2:latest'];
      await app?.close();
      logs = [];
      app = await gatewayApp({
        toml: `[gateway]\nprovider = "ollama"\n[providers.ollama]\nendpoint = "${fake.url.origin}"\nmodel = "llama3.2"`,
        logs,
      });
      expect((await app.get(HealthService).health()).providers[0]).toMatchObject({
        ok: true,
        detail: expect.stringContaining('model "llama3.2" installed'),
      });
    });

    it.each([
      [
        'a model that is not pulled',
        () => (fake.models = ['llama3.2:latest', 'qwen3:4b']),
        /model "gemma4:e4b" is not pulled \(installed: llama3\.2:latest, qwen3:4b\); run `ollama pull gemma4:e4b`/,
      ],
      [
        'an Ollama too old for logprobs',
        () => (fake.version = '0.12.6'),
        /Ollama 0\.12\.6 is too old: logprobs need 0\.12\.11 or later, upgrade Ollama/,
      ],
      [
        'an engine that is down',
        () => Object.assign(fake, { fault: 'status-500', faultEverywhere: true }),
        /^error: HTTP 500 from 127\.0\.0\.1:\d+: llama runner/,
      ],
      [
        'an engine that hangs',
        () => Object.assign(fake, { fault: 'hang', faultEverywhere: true }),
        `timeout: no answer within ${TIMEOUT_S} s`,
      ],
      [
        'something else on the port',
        () => Object.assign(fake, { fault: 'wrong-shape', faultEverywhere: true }),
        /^malformed: GET \/api\/version at .* did not answer \{"version": \.\.\.\}: is this Ollama\?/,
      ],
    ])('is not ok for %s, with a detail saying so', async (_name, setup, detail) => {
      setup();
      const report = await health(`timeout_s = ${TIMEOUT_S}`);
      expect(report.status).toBe('down');
      expect(report.providers[0]).toMatchObject({ ok: false, detail: expect.stringMatching(matching(detail)) });
    });

    it('accepts a newer release', async () => {
      fake.version = '0.13.2';
      expect((await health()).providers[0]).toMatchObject({
        ok: true,
        detail: expect.stringContaining('Ollama 0.13.2'),
      });
    });
  });
});
