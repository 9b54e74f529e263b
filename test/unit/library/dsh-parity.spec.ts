/**
 * The library against dsh-system1's API (spec/dsh-system1-api.txt), one test per place it used to differ.
 * Each of these failed before the fix it covers.
 */
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { createSystem1 } from '../../../src/library/create-system1';
import { createCloudflareProvider } from '../../../src/providers/factories/cloudflare';
import { createLayaProvider } from '../../../src/providers/factories/laya';
import { createTypesafeProvider } from '../../../src/providers/factories/typesafe';
import { LayaFake } from '../../fakes/laya.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { VonFake } from '../../fakes/von.fake';
import { LibrarySandbox, THREE_QUESTIONS, TYPESAFE_KEY } from './library-setup';

let sandbox: LibrarySandbox;
beforeEach(() => (sandbox = new LibrarySandbox()));
afterEach(() => sandbox.close());

describe('with laya', () => {
  let laya: LayaFake;
  beforeEach(async () => {
    laya = new LayaFake();
    await laya.start();
  });
  afterEach(() => laya.stop());
  const config = () => `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${laya.url.origin}"\n`;

  it('answers unsupported for a JSON scalar state, per question, without asking the engine', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 42, questions: THREE_QUESTIONS });
    for (const answer of Object.values(result.answers)) {
      expect(answer).toEqual({
        status: 'error',
        error: {
          code: 'unsupported',
          message: 'laya takes text, a JSON object or a JSON array as state, not a number',
        },
      });
    }
    expect(laya.requests).toHaveLength(0);
  });

  it('gives each attempt 800 ms by default, whatever [gateway] timeout_s says', async () => {
    laya.latencyMs = () => 1500;
    const system1 = await sandbox.open(config().replace('[gateway]\n', '[gateway]\ntimeout_s = 5\n'));
    const result = await system1.decide({ state: 'x', questions: { refund: THREE_QUESTIONS.refund } });
    expect(result.answers.refund).toEqual({
      status: 'error',
      error: { code: 'timeout', message: 'no answer within 0.8 s' },
    });
  });

  it('names the model in meta.requested, and the checkpoint that answered in meta.executed', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(result.meta.requested).toEqual({ provider: 'laya', model: 'typed-decisions' });
    expect(result.meta.executed).toEqual({ provider: 'laya', model: 'typed-decisions' });
  });

  it('says a disposed engine is not registered, in words about the library, not a CLI flag', async () => {
    const system1 = await sandbox.open(config());
    const dispose = system1.registerProvider('team', {
      capabilities: () => ({ batch: false, probabilities: true }),
      pick: async (ask) => ({ decision: ask.options[0], confidence: 0.9 }),
    });
    dispose();
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'team' },
    });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: {
        code: 'unavailable',
        message: expect.stringMatching(/^no provider is named "team": register it with registerProvider/),
      },
    });
    expect(JSON.stringify(result)).not.toContain('--provider');
  });
});

it.each([
  [
    'a provider that is not text',
    { fallbackModels: [{ provider: 5 }] },
    'fallbackModels[0].provider must name a provider',
  ],
  ['a string for the list', { fallbackModels: 'nope' }, 'fallbackModels must be a list of {provider, model?}'],
  [
    'an unknown field in a model',
    { defaultModel: { provider: 'laya', region: 'eu' } },
    'defaultModel.region is not a field of a model reference',
  ],
])('refuses malformed models when the service is created: %s', async (_what, options, message) => {
  const created = createSystem1({
    ...(options as object),
    env: { HOME: '/nonexistent', SYSTEM1_CONFIG: '/nonexistent/config.toml' },
    logger: false,
  });
  await expect(created).rejects.toThrow(System1InputError);
  await expect(created).rejects.toThrow(message);
});

it('reads an 11-level score asked as a choice whose rounded probabilities sum to 1.02', async () => {
  const typesafe = new TypeSafeFake({ apiKey: TYPESAFE_KEY });
  await typesafe.start();
  try {
    const levels = Array.from({ length: 11 }, (_, i) => `level ${i}`);
    // Eleven probabilities rounded to 2 decimals: 10 x 0.02 + 0.82 = 1.02, within 11 half-hundredths of 1.
    typesafe.probabilities = Object.fromEntries(levels.map((_, i) => [String(i), i === 7 ? 0.82 : 0.02]));
    const system1 = await sandbox.open(
      `[gateway]\nprovider = "typesafe"\n[providers.typesafe]\nendpoint = "${typesafe.url.origin}"\n`,
      { SYSTEM1_TYPESAFE_API_KEY: TYPESAFE_KEY },
    );
    const result = await system1.decide({
      state: 'x',
      questions: { rating: { type: 'score', instructions: 'Rate it 0-10.', criteria: levels } },
    });
    expect(result.answers.rating).toMatchObject({ status: 'ok', answer: { type: 'score', level: 7 } });
  } finally {
    await typesafe.stop();
  }
});

it("reads Von's yes/no from noul_raw, the calibrated P(true), not its band-committed noul", async () => {
  const von = new VonFake();
  von.noulTrue = 0.62;
  await von.start();
  try {
    const system1 = await sandbox.open(
      `[gateway]\nprovider = "von"\n[providers.von]\nendpoint = "${von.url.origin}"\n`,
    );
    const result = await system1.decide({ state: 'x', questions: { refund: THREE_QUESTIONS.refund } });
    expect(result.answers.refund).toMatchObject({
      status: 'ok',
      answer: { type: 'noul', probabilityTrue: 0.62, confidence: expect.closeTo(0.24, 6) },
    });
  } finally {
    await von.stop();
  }
});

describe('providers written for dsh-system1, and the provider factories', () => {
  it('registers a provider with describe(model, signal) and evaluate(request, signal), read as typed answers', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const seen: { model?: string; signal: boolean }[] = [];
    system1.registerProvider('dsh', {
      describe: async (model) => ({
        types: ['choice', 'noul'],
        maxOptions: 2,
        ...(model === 'small' && { maxOptions: 1 }),
      }),
      evaluate: async (request, signal) => {
        seen.push({ model: request.model, signal: signal instanceof AbortSignal });
        return {
          answers: {
            topic: {
              type: 'choice',
              value: 'technical',
              probabilities: { billing: 0.3, technical: 0.7 },
              confidence: 0.7,
              calibrated: false,
            },
          },
          model: 'dsh-1',
        };
      },
    });
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'dsh', model: 'large' },
    });
    expect(result.answers.topic).toMatchObject({
      status: 'ok',
      answer: { type: 'choice', value: 'technical', confidence: 0.7 },
    });
    expect(result.meta.executed).toEqual({ provider: 'dsh', model: 'dsh-1' });
    expect(seen).toEqual([{ model: 'large', signal: true }]);
    // What describe() says a model takes is held before sending: two candidates are too many for "small".
    const refused = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'dsh', model: 'small' },
    });
    expect(refused.answers.topic).toEqual({
      status: 'error',
      error: { code: 'limit_exceeded', message: expect.stringContaining('at most 1 candidates') },
    });
    expect(seen).toHaveLength(1);
  });

  it('builds TypeSafe from createTypesafeProvider with baseURL, apiKeyEnv and an injected fetch', async () => {
    const typesafe = new TypeSafeFake({ apiKey: 'sk-from-MY_TS_KEY-1' });
    await typesafe.start();
    const sent: string[] = [];
    try {
      process.env.MY_TS_KEY = 'sk-from-MY_TS_KEY-1';
      const provider = createTypesafeProvider({
        baseURL: typesafe.url.origin,
        apiKeyEnv: 'MY_TS_KEY',
        model: 'jev-1.14.0',
        fetch: (url: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => (
          sent.push(String(url)),
          fetch(url, init)
        ),
      });
      const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
      system1.registerProvider('ts', provider);
      const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, model: { provider: 'ts' } });
      expect(result.answers.topic.status).toBe('ok');
      expect(sent).toEqual([`${typesafe.url.origin}/v1/systemone`]);
      expect(typesafe.requests[0].headers.authorization).toBe('Bearer sk-from-MY_TS_KEY-1');
    } finally {
      delete process.env.MY_TS_KEY;
      await typesafe.stop();
    }
  });

  it('keeps a TypeSafe 422 as provider_error, with httpStatus 422', async () => {
    const provider = createTypesafeProvider({
      baseURL: 'http://127.0.0.1:9',
      apiKey: 'sk-test-422',
      fetch: async () =>
        new Response(JSON.stringify({ detail: [{ loc: ['body', 'state'], msg: 'too long' }] }), {
          status: 422,
          headers: { 'content-type': 'application/json' },
        }),
    });
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('ts', provider);
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'ts' },
    });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'provider_error', httpStatus: 422, message: expect.stringContaining('HTTP 422') },
    });
  });

  it('builds Laya and Cloudflare the same way, refusing a bad setting by name', async () => {
    expect(createLayaProvider().capabilities()).toMatchObject({ model: 'typed-decisions', max_options: 20 });
    expect(() => createLayaProvider({ model: 'gpt-4' })).toThrow(/model names no Laya checkpoint/);
    expect(() => createCloudflareProvider({ accountId: '' })).toThrow(/^accountId must be a non-empty string/);
    expect(createCloudflareProvider({ accountId: 'acc-1', apiKey: 't' }).capabilities()).toMatchObject({
      max_options: expect.any(Number),
    });
  });
});
