import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { LayaFake } from '../../fakes/laya.fake';
import { LlamaServerFake } from '../../fakes/systemone.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { LibrarySandbox, PIXEL, THREE_QUESTIONS, TYPESAFE_KEY, waitFor } from './library-setup';

describe('createSystem1().decide against fake System One engines', () => {
  let laya: LayaFake;
  let typesafe: TypeSafeFake;
  let sandbox: LibrarySandbox;
  const config = (extra = '') => `[gateway]
provider = "laya"
fallback = ["typesafe"]
${extra}
[providers.laya]
endpoint = "${laya.url.origin}"
[providers.typesafe]
endpoint = "${typesafe.url.origin}"
model = "jev-1.14.0"
`;

  beforeEach(async () => {
    laya = new LayaFake();
    typesafe = new TypeSafeFake({ apiKey: TYPESAFE_KEY });
    await Promise.all([laya.start(), typesafe.start()]);
    sandbox = new LibrarySandbox();
  });
  afterEach(async () => {
    await sandbox.close();
    await Promise.all([laya.stop(), typesafe.stop()]);
  });

  it('asks a choice, a yes/no and a score about one state in ONE engine request and answers each', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'The user asked about a refund.', questions: THREE_QUESTIONS });

    const sent = laya.requestsTo('/v1/systemone');
    expect(sent).toHaveLength(1);
    expect(sent[0].body).toMatchObject({
      state: 'The user asked about a refund.',
      questions: {
        // Laya's own noul follows its labels, so yes/no travels as a two-candidate choice.
        refund: {
          type: 'choice',
          instructions: 'Is the user asking about a refund?',
          criteria: { yes: null, no: null },
        },
        topic: { type: 'choice', criteria: { billing: 'Billing refund', technical: 'Technical support' } },
        urgency: { type: 'score', criteria: ['Normal', 'Urgent', 'Critical'] },
      },
    });
    // The fake puts its first option highest: 2 of 3 parts for two options, 3 of 6 for three.
    expect(result.answers).toEqual({
      refund: {
        status: 'ok',
        answer: {
          type: 'noul',
          value: true,
          probabilityTrue: 0.6667,
          confidence: expect.closeTo(0.3334, 4),
          calibrated: false,
        },
        belowThreshold: true,
      },
      topic: {
        status: 'ok',
        answer: {
          type: 'choice',
          value: 'billing',
          probabilities: { billing: 0.6667, technical: 0.3333 },
          confidence: 0.6667,
          calibrated: false,
        },
        belowThreshold: false,
      },
      urgency: {
        status: 'ok',
        answer: {
          type: 'score',
          value: 0.6667,
          level: 0,
          distribution: [0.5, 0.3333, 0.1667],
          confidence: 0.5,
          calibrated: false,
        },
        belowThreshold: true,
      },
    });
    expect(result.meta).toMatchObject({
      requested: { provider: 'laya' },
      executed: { provider: 'laya', model: 'typed-decisions' },
    });
    expect(result.meta.attempts).toBeUndefined();
    expect(result.meta.usage?.inputTokens).toBeGreaterThan(0);
    expect(result.meta.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typesafe.requests).toHaveLength(0);
  });

  it('sends yes/no as a native noul to engines whose noul reads the input, and puts its confidence at |2p - 1|', async () => {
    const llama = new LlamaServerFake();
    await llama.start();
    try {
      llama.noulTrue = 0.15;
      const system1 = await sandbox.open(
        `[gateway]\nprovider = "systemone"\nmin_confidence = 0.6\n[providers.systemone]\nendpoint = "${llama.url.origin}"`,
      );
      const result = await system1.decide({
        state: { ticket: 'ok' },
        questions: {
          angry: { type: 'noul', instructions: 'Is the customer angry?', criteria: { true: 'angry', false: 'calm' } },
        },
      });
      expect(llama.requests[0].body).toMatchObject({
        questions: { angry: { type: 'noul', criteria: { true: 'angry', false: 'calm' } } },
      });
      expect(result.answers.angry).toEqual({
        status: 'ok',
        answer: { type: 'noul', value: false, probabilityTrue: 0.15, confidence: 0.7, calibrated: false },
        belowThreshold: false,
      });
    } finally {
      await llama.stop();
    }
  });

  it('keeps the good answers when one answer is malformed, without trying another engine', async () => {
    laya.answersById = { urgency: { type: 'score', score: 7, probabilities: { 0: 0.2, 1: 0.3, 2: 0.5 } } };
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    expect(result.answers.urgency).toEqual({
      status: 'error',
      error: {
        code: 'invalid_response',
        message: 'laya answer to "urgency": "score" is 7, not a level between 0 and 2',
      },
    });
    expect(result.answers.topic).toMatchObject({ status: 'ok', answer: { value: 'billing' } });
    expect(result.answers.refund).toMatchObject({ status: 'ok', answer: { value: true } });
    expect(result.meta.executed).toEqual({ provider: 'laya', model: 'typed-decisions' });
    expect(typesafe.requests).toHaveLength(0);
  });

  it.each([
    [
      'a choice outside the candidates',
      { type: 'choice', choice: 'refunds', probabilities: { billing: 0.5, technical: 0.5 } },
      'the choice "refunds" is not one of the candidates sent',
    ],
    [
      'probabilities that do not sum to 1',
      { type: 'choice', choice: 'billing', probabilities: { billing: 0.9, technical: 0.9 } },
      '"probabilities" sum to 1.8, not about 1',
    ],
    ['the wrong type', { type: 'noul', noul: 0.9 }, 'type "noul" instead of "choice"'],
    ['nothing', undefined, 'missing from the reply'],
  ])('reads %s as that question’s invalid_response', async (_what, answer, problem) => {
    laya.reshape = (body) => {
      const answers = body.answers as Record<string, unknown>;
      if (answer === undefined) delete answers.topic;
      else answers.topic = answer;
      return body;
    };
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'invalid_response', message: `laya answer to "topic": ${problem}` },
    });
    expect(result.answers.refund.status).toBe('ok');
  });

  it('warns about answers to questions nobody asked', async () => {
    laya.reshape = (body) => ({ ...body, answers: { ...(body.answers as object), extra: { type: 'noul', noul: 1 } } });
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(result.meta.warnings).toEqual(['laya: 1 answer to a question not asked was ignored ("extra")']);
    expect(Object.keys(result.answers)).toEqual(['topic']);
  });

  it('moves to the next engine when the first cannot take a question type, and says why in meta.attempts', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({
      state: 'Items on the kitchen counter.',
      images: [{ mediaType: 'image/png', data: PIXEL }],
      questions: { mug: { type: 'box', instructions: 'Locate the coffee mug.' }, topic: THREE_QUESTIONS.topic },
    });
    expect(laya.requests).toHaveLength(0);
    expect(result.meta.attempts).toEqual([
      {
        provider: 'laya',
        error: {
          code: 'unsupported',
          message: 'laya does not answer box questions (question "mug"; it answers choice, noul, score)',
        },
      },
    ]);
    expect(result.meta.executed).toEqual({ provider: 'typesafe', model: 'jev-1.14.0' });
    expect(result.answers.mug).toEqual({
      status: 'ok',
      answer: { type: 'box', box: { top: 0.1, bottom: 0.6, left: 0.2, right: 0.7 }, confidence: 0.7 },
      belowThreshold: false,
    });
    const [sent] = typesafe.requestsTo('/v1/systemone');
    expect(sent.headers['typesafe-danger-zone-images']).toBe('true');
    expect(sent.body).toMatchObject({ model: 'jev-1.14.0', images: [{ mediaType: 'image/png', data: PIXEL }] });
  });

  it('refuses images on the last engine when it takes none, for every question', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({
      state: 'x',
      model: { provider: 'typesafe', model: 'jev-1.13.0' },
      images: [{ mediaType: 'image/png', data: PIXEL }],
      questions: { mug: { type: 'box', instructions: 'Locate the mug.' }, topic: THREE_QUESTIONS.topic },
    });
    for (const id of ['mug', 'topic']) {
      expect(result.answers[id]).toEqual({
        status: 'error',
        error: { code: 'unsupported', message: 'typesafe takes no images' },
      });
    }
    expect(typesafe.requests).toHaveLength(0);
  });

  it('refuses a question over an engine limit before sending it, and falls back', async () => {
    // More levels than its score takes and more than its choice takes (a narrower score is asked as a choice)
    const levels = Array.from({ length: 256 }, (_, i) => `level ${i}`);
    const system1 = await sandbox.open(config());
    const result = await system1.decide({
      state: 'x',
      questions: { fine: { type: 'score', instructions: 'How fine?', criteria: levels } },
      model: { provider: 'typesafe' },
    });
    expect(result.answers.fine).toEqual({
      status: 'error',
      error: { code: 'limit_exceeded', message: 'typesafe takes at most 10 levels per score question; "fine" has 256' },
    });
    expect(typesafe.requests).toHaveLength(0);
  });

  it('runs an explicit model alone, with the model it names', async () => {
    typesafe.fault = 'status-500';
    const system1 = await sandbox.open(config());
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'typesafe', model: 'jev-1.13.0' },
    });
    expect(typesafe.requests[0].body).toMatchObject({ model: 'jev-1.13.0' });
    expect(result.answers.topic).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
    expect(result.meta).toMatchObject({ requested: { provider: 'typesafe', model: 'jev-1.13.0' } });
    expect(result.meta.executed).toBeUndefined();
    expect(laya.requests).toHaveLength(0);
  });

  it.each([
    ['hang', 'timeout', 'no answer within 0.3 s'],
    ['status-503', 'unavailable', 'HTTP 503'],
    ['reset', 'unavailable', ''],
    ['non-json', 'invalid_response', ''],
    ['wrong-shape', 'invalid_response', 'without an "answers" object'],
    ['status-500', 'provider_error', 'HTTP 500'],
  ] as const)('falls back when the first engine plays %s, recording it as %s', async (fault, code, detail) => {
    laya.fault = fault;
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, timeoutMs: 300 });
    // An engine's error status is carried along (dsh-system1's httpStatus).
    const status = /^status-(\d+)$/.exec(fault)?.[1];
    expect(result.meta.attempts).toEqual([
      {
        provider: 'laya',
        error: { code, message: expect.stringContaining(detail), ...(status && { httpStatus: Number(status) }) },
      },
    ]);
    expect(result.meta.executed).toEqual({ provider: 'typesafe', model: 'jev-1.14.0' });
    expect(Object.values(result.answers).map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(JSON.stringify(result)).not.toContain(TYPESAFE_KEY);
  });

  it('gives every question the last error when every engine fails', async () => {
    laya.fault = 'status-503';
    typesafe.fault = 'hang';
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, timeoutMs: 200 });
    for (const id of Object.keys(THREE_QUESTIONS)) {
      expect(result.answers[id]).toEqual({
        status: 'error',
        error: { code: 'timeout', message: 'no answer within 0.2 s' },
      });
    }
    expect(result.meta.attempts?.map((a) => [a.provider, a.error.code])).toEqual([
      ['laya', 'unavailable'],
      ['typesafe', 'timeout'],
    ]);
  });

  it('ends the chain when the caller cancels mid-call: the engine request is aborted and no later engine runs', async () => {
    laya.fault = 'hang';
    const system1 = await sandbox.open(config());
    const controller = new AbortController();
    // A timeout far past the test's own: the call can only settle because the cancel ended it.
    const pending = system1.decide({
      state: 'x',
      questions: THREE_QUESTIONS,
      signal: controller.signal,
      timeoutMs: 3_600_000,
    });
    await waitFor(() => laya.requests.length === 1, 'the request to reach laya');
    controller.abort();
    const result = await pending;
    for (const id of Object.keys(THREE_QUESTIONS))
      expect(result.answers[id]).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    expect(result.meta.attempts).toBeUndefined();
    expect(result.meta.executed).toBeUndefined();
    await waitFor(() => laya.abandoned === 1, 'laya to see its request aborted');
    expect(typesafe.requests).toHaveLength(0);
  });

  it('answers cancelled without asking anyone when the signal is already aborted', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, signal: AbortSignal.abort() });
    expect(result.answers.topic).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    expect(laya.requests).toHaveLength(0);
  });

  it('calibrates each answer with the fit for its question and applies the threshold per question', async () => {
    writeFileSync(
      path.join(sandbox.installDir, 'calibration.json'),
      JSON.stringify({
        version: 1,
        fits: [
          {
            provider: 'laya',
            model: 'typed-decisions',
            question: 'Choose a topic.',
            temperature: 4,
            n: 50,
            at_bound: false,
            source: 'test',
          },
        ],
      }),
    );
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, minConfidence: 0.55 });
    // T = 4 flattens 0.6667 / 0.3333 to about 0.543 / 0.457: now below 0.55.
    expect(result.answers.topic).toMatchObject({
      status: 'ok',
      answer: { value: 'billing', calibrated: true, confidence: expect.closeTo(0.5433, 3) },
      belowThreshold: true,
    });
    // No fit for the score question: as the engine said, above the threshold... no: 0.5 < 0.55.
    expect(result.answers.urgency).toMatchObject({
      status: 'ok',
      answer: { calibrated: false, confidence: 0.5 },
      belowThreshold: true,
    });
    expect(result.answers.refund).toMatchObject({ status: 'ok', answer: { calibrated: false } });
  });

  it.each([
    ['no state', { questions: THREE_QUESTIONS }, 'state must be text or a JSON value (got nothing)'],
    ['no questions', { state: 'x', questions: {} }, 'questions must be an object with at least one question'],
    [
      'a reserved id',
      { state: 'x', questions: JSON.parse('{"__proto__": {"type": "noul", "instructions": "?"}}') },
      'uses the reserved id "__proto__"',
    ],
    [
      'an unknown type',
      { state: 'x', questions: { q: { type: 'rank', instructions: '?' } } },
      'questions.q.type must be one of choice, noul, score, box (got "rank")',
    ],
    [
      'a choice with one candidate',
      { state: 'x', questions: { q: { type: 'choice', instructions: '?', criteria: { a: null } } } },
      'questions.q.criteria must be an object with at least two candidates',
    ],
    [
      'a score with one level',
      { state: 'x', questions: { q: { type: 'score', instructions: '?', criteria: ['only'] } } },
      'questions.q.criteria must be a list of at least two levels',
    ],
    [
      'empty instructions',
      { state: 'x', questions: { q: { type: 'noul', instructions: '' } } },
      'questions.q.instructions must not be empty',
    ],
    // The caps: reading a call stays cheap, and an engine without batches is not called without end.
    [
      'a score of 40,000 levels',
      { state: 'x', questions: { q: { type: 'score', instructions: '?', criteria: Array(40_000).fill('level') } } },
      'questions.q.criteria must hold at most 256 levels (got 40000)',
    ],
    [
      'a choice of 257 candidates',
      {
        state: 'x',
        questions: {
          q: {
            type: 'choice',
            instructions: '?',
            criteria: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`c${i}`, null])),
          },
        },
      },
      'questions.q.criteria must hold at most 256 candidates (got 257)',
    ],
    [
      '65 questions',
      {
        state: 'x',
        questions: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`q${i}`, THREE_QUESTIONS.refund])),
      },
      'questions must hold at most 64 questions (got 65)',
    ],
    [
      'a box without an image',
      { state: 'x', questions: { q: { type: 'box', instructions: 'Find it.' } } },
      'questions.q is a box question, which needs at least one image',
    ],
    [
      'five images',
      { state: 'x', questions: THREE_QUESTIONS, images: Array(5).fill({ mediaType: 'image/png', data: PIXEL }) },
      'images may hold at most 4 images',
    ],
    [
      'a data URL',
      {
        state: 'x',
        questions: THREE_QUESTIONS,
        images: [{ mediaType: 'image/png', data: `data:image/png;base64,${PIXEL}` }],
      },
      'images[0].data must be padded standard Base64',
    ],
    [
      'a gif',
      { state: 'x', questions: THREE_QUESTIONS, images: [{ mediaType: 'image/gif', data: PIXEL }] },
      'images[0].mediaType must be one of image/png, image/jpeg, image/webp',
    ],
    [
      'a zero timeout',
      { state: 'x', questions: THREE_QUESTIONS, timeoutMs: 0 },
      'timeoutMs must be a positive whole number',
    ],
    // A Node timer past 2^31-1 ms fires after 1 ms: the call would time out at once and cool the engine down.
    [
      'a timeout no timer can wait',
      { state: 'x', questions: THREE_QUESTIONS, timeoutMs: 2 ** 31 },
      'timeoutMs must be at most 2147483647 milliseconds',
    ],
    [
      'a model without provider',
      { state: 'x', questions: THREE_QUESTIONS, model: { model: 'jev' } },
      'model.provider must name a provider',
    ],
    [
      'an unknown field',
      { state: 'x', questions: THREE_QUESTIONS, temperature: 0 },
      '"temperature" is not a field of a decision request',
    ],
    ['a state nested too deep', { state: nested(40), questions: THREE_QUESTIONS }, 'state nests more than 32 levels'],
  ])('throws System1InputError before any engine runs for %s', async (_what, request, message) => {
    const system1 = await sandbox.open(config());
    const call = system1.decide(request as never);
    await expect(call).rejects.toThrow(System1InputError);
    await expect(call).rejects.toThrow(message);
    expect(laya.requests).toHaveLength(0);
  });

  it('answers unavailable, naming the problem, while the config is broken, as system1_decide answers config_error', async () => {
    const system1 = await sandbox.open(
      config().replace('fallback = ["typesafe"]', 'fallback = ["typesafe", "nonesuch"]'),
    );
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: {
        code: 'unavailable',
        message: expect.stringMatching(
          /^the config is broken: .*gateway\.fallback names an unknown provider "nonesuch"/,
        ),
      },
    });
    expect(laya.requests).toHaveLength(0);
    expect(typesafe.requests).toHaveLength(0);
    expect(system1.configErrors().map((error) => error.key)).toEqual(['gateway.fallback']);
  });

  it('does not throw for a config file that is missing, and says so on every call', async () => {
    const system1 = await sandbox.open(config(), {}, { configFile: path.join(sandbox.root, 'nowhere.toml') });
    expect(system1.configErrors()).toEqual([
      expect.objectContaining({ key: '(file)', message: expect.stringContaining('does not exist') }),
    ]);
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(result.answers.topic).toMatchObject({
      status: 'error',
      error: { code: 'unavailable', message: expect.stringContaining('nowhere.toml') },
    });
    expect(laya.requests).toHaveLength(0);
  });
});

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { inner: value };
  return value;
}

describe('createSystem1().decide against a fake Workers AI (Clef)', () => {
  it('sends typed questions to the account route and reads them out of the envelope', async () => {
    const fake = new CloudflareFake({ apiKey: 'cf-token-LIBRARY-9' });
    await fake.start();
    const sandbox = new LibrarySandbox();
    try {
      const toml = `[gateway]\nprovider = "cloudflare"\n[providers.cloudflare]\naccount_id = "${fake.accountId}"\nendpoint = "${fake.url.origin}"\nmodel = "clef-flash"`;
      const system1 = await sandbox.open(toml, { SYSTEM1_CLOUDFLARE_API_TOKEN: 'cf-token-LIBRARY-9' });
      const result = await system1.decide({ state: { ticket: 'refund?' }, questions: THREE_QUESTIONS });
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0].path).toBe(`/client/v4/accounts/${fake.accountId}/ai/run/@cf/cloudflare/clef-flash`);
      expect(fake.requests[0].body).toMatchObject({
        model: 'clef-flash',
        questions: { refund: { type: 'noul' }, urgency: { type: 'score' } },
      });
      expect(Object.values(result.answers).map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(result.answers.refund).toMatchObject({ answer: { type: 'noul', probabilityTrue: 0.8 } });
      expect(result.meta.executed).toEqual({ provider: 'cloudflare', model: 'clef-flash' });
    } finally {
      await sandbox.close();
      await fake.stop();
    }
  });
});
