/**
 * The openai-decisions provider through the pipeline, against a fake Decisions API host: what is sent and
 * where the key goes, each question answered or refused on its own, the host's errors and faults (the chain
 * moving on), limits refused before anything is sent, calibration and fallback, `system1_capabilities`,
 * `system1_health` and the settings. The library (`createSystem1`) asks typed questions; `system1_decide`
 * (DecideService) the fault table the other engines pass.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { DecisionsEngineFake } from '../../fakes/decisions-engine';
import { RecordingServer } from '../../fakes/recording-server';
import { gatewayApp } from '../../helpers/gateway-app';
import { scaled } from '../../helpers/independent-calibration';
import { LibrarySandbox, PIXEL, THREE_QUESTIONS } from '../library/library-setup';
import {
  engineUnderTest,
  type FaultExpectation,
  itHandlesEachFault,
  OPTIONS,
  QUESTION,
  TIMEOUT_FAULTS,
  TRANSPORT_FAULTS,
} from './systemone.shared';

const PROVIDER = 'openai-decisions';
const VARIABLE = 'SYSTEM1_OPENAI_DECISIONS_API_KEY';
const KEY = 'sk-test-OPENAI-DECISIONS-SECRET-42';

describe('openai-decisions through the library, against a fake Decisions API host', () => {
  let fake: DecisionsEngineFake;
  let sandbox: LibrarySandbox;
  const open = (settings = '', gateway = '') =>
    sandbox.open(
      `[gateway]\nprovider = "${PROVIDER}"\n${gateway}\n[providers.${PROVIDER}]\nendpoint = "${fake.url.origin}"\n${settings}`,
      { [VARIABLE]: KEY },
    );

  beforeEach(async () => {
    fake = new DecisionsEngineFake({ apiKey: KEY });
    await fake.start();
    sandbox = new LibrarySandbox();
  });
  afterEach(async () => {
    await sandbox.close();
    await fake.stop();
  });

  it('asks every question in ONE request with the key as a bearer, and reads each answer back', async () => {
    const system1 = await open();
    const result = await system1.decide({ state: { ticket: 'refund please' }, questions: THREE_QUESTIONS });

    expect(fake.requests).toHaveLength(1);
    expect(fake.last).toMatchObject({
      method: 'POST',
      path: '/v1/decisions',
      headers: expect.objectContaining({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }),
    });
    expect(fake.last!.body).toEqual({
      model: 'gpt-6-luna',
      input: '{"ticket":"refund please"}',
      questions: [
        { type: 'predicate', name: 'refund', instructions: 'Is the user asking about a refund?' },
        {
          type: 'choice',
          name: 'topic',
          instructions: 'Choose a topic.',
          choices: [
            { value: 'billing', description: 'Billing refund' },
            { value: 'technical', description: 'Technical support' },
          ],
        },
        {
          type: 'score',
          name: 'urgency',
          instructions: 'Rate urgency.',
          levels: [{ label: 'Normal' }, { label: 'Urgent' }, { label: 'Critical' }],
        },
      ],
    });
    expect(result.answers).toEqual({
      refund: {
        status: 'ok',
        answer: {
          type: 'noul',
          value: true,
          probabilityTrue: 0.9,
          confidence: expect.closeTo(0.8, 6),
          calibrated: false,
        },
        belowThreshold: false,
      },
      topic: {
        status: 'ok',
        answer: {
          type: 'choice',
          value: 'billing',
          probabilities: { billing: 0.9, technical: 0.1 },
          confidence: 0.9,
          calibrated: false,
        },
        belowThreshold: false,
      },
      urgency: {
        status: 'ok',
        answer: {
          type: 'score',
          value: 0.225,
          level: 0,
          distribution: [0.85, 0.075, 0.075],
          confidence: 0.85,
          calibrated: false,
        },
        belowThreshold: false,
      },
    });
    expect(result.meta).toMatchObject({
      executed: { provider: PROVIDER, model: 'gpt-6-luna' },
      usage: { inputTokens: 160, outputTokens: 0 },
    });
    expect(result.meta.attempts).toBeUndefined();
    expect(JSON.stringify(result) + sandbox.logs.join('\n')).not.toContain(KEY);
  });

  it('fails a refused question alone (abstained: no other engine asked), the others keep their answers', async () => {
    fake.refuse = ['topic'];
    const system1 = await open('', 'fallback = ["mock"]');
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'unsupported', message: 'openai-decisions refused to answer "topic"' },
    });
    expect(result.answers.refund).toMatchObject({ status: 'ok', answer: { value: true } });
    expect(result.answers.urgency).toMatchObject({ status: 'ok', answer: { level: 0 } });
    expect(result.meta.executed).toEqual({ provider: PROVIDER, model: 'gpt-6-luna' });
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ['answers out of order', 'reversed' as const, 'is named "urgency": answers out of order'],
    ['an answer missing', 'drop-last' as const, 'gave 2 answers to 3 questions'],
  ])('takes a reply with %s as unreadable and asks the next engine', async (_what, order, words) => {
    fake.order = order;
    const system1 = await open('', 'fallback = ["mock"]');
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    expect(result.meta.attempts).toEqual([
      { provider: PROVIDER, error: { code: 'invalid_response', message: expect.stringContaining(words) } },
    ]);
    expect(result.meta.executed).toEqual({ provider: 'mock' });
    expect(result.answers.topic).toMatchObject({ status: 'ok' });
  });

  const IMAGES = { images: [{ mediaType: 'image/png' as const, data: PIXEL }] };
  it.each<[string, string, { images?: typeof IMAGES.images }, string, string]>([
    ['a choice with more candidates than max_choices', 'max_choices = 2', {}, 'limit_exceeded', 'at most 2 candidates'],
    ['more questions than max_questions', 'max_questions = 2', {}, 'limit_exceeded', 'at most 2 questions per request'],
    ['images when images = false', 'images = false', IMAGES, 'unsupported', 'takes no images'],
  ])('refuses %s before sending, and the chain moves on', async (_what, settings, extra, code, words) => {
    const questions = {
      ...THREE_QUESTIONS,
      topic: { ...THREE_QUESTIONS.topic, criteria: { ...THREE_QUESTIONS.topic.criteria, shipping: null } },
    };
    const system1 = await open(settings, 'fallback = ["mock"]');
    const result = await system1.decide({ state: 'refund please', questions, ...extra });
    expect(fake.requests).toHaveLength(0);
    expect(result.meta.attempts![0]).toEqual({
      provider: PROVIDER,
      error: { code, message: expect.stringContaining(words) },
    });
    // The mock takes no images either: then every question fails as unsupported.
    expect(result.meta.attempts!.map(({ provider }) => provider)).toEqual(
      extra.images ? [PROVIDER, 'mock'] : [PROVIDER],
    );
  });

  it('refuses a box question before sending; as the last engine it answers the others', async () => {
    const system1 = await open();
    const result = await system1.decide({
      state: 'a photo',
      images: [{ mediaType: 'image/png', data: PIXEL }],
      questions: { where: { type: 'box', instructions: 'Where is the cat?' }, refund: THREE_QUESTIONS.refund },
    });
    expect(result.answers.where).toMatchObject({
      status: 'error',
      error: { code: 'unsupported', message: expect.stringContaining('does not answer box questions') },
    });
    expect(result.answers.refund).toMatchObject({ status: 'ok' });
    const input = (fake.last!.body as { input: unknown }).input;
    expect(input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'a photo' },
          { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
        ],
      },
    ]);
    expect((fake.last!.body as { questions: unknown[] }).questions).toHaveLength(1);
  });

  it('calibrates its answers with a fit stored for it', async () => {
    writeFileSync(
      path.join(sandbox.installDir, 'calibration.json'),
      JSON.stringify({
        version: 1,
        fits: [
          {
            provider: PROVIDER,
            model: 'gpt-6-luna',
            question: 'Choose a topic.',
            temperature: 4,
            n: 50,
            at_bound: false,
            source: 'test',
          },
        ],
      }),
    );
    const system1 = await open();
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS, minConfidence: 0.7 });
    const [billing] = scaled([0.9, 0.1], 4);
    expect(result.answers.topic).toMatchObject({
      status: 'ok',
      answer: { value: 'billing', calibrated: true, confidence: expect.closeTo(billing, 3) },
      belowThreshold: true,
    });
    expect(result.answers.refund).toMatchObject({ answer: { calibrated: false } });
  });

  it('falls back to the next engine of the chain when the host fails, keeping its status', async () => {
    fake.fault = 'status-500';
    const system1 = await open('', 'fallback = ["mock"]');
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    expect(result.meta.attempts).toEqual([
      {
        provider: PROVIDER,
        error: {
          code: 'provider_error',
          httpStatus: 500,
          message: expect.stringMatching(
            /^HTTP 500 from 127\.0\.0\.1:\d+: The server had an error .*; the host failed/,
          ),
        },
      },
    ]);
    expect(result.meta.executed).toEqual({ provider: 'mock' });
    expect(Object.values(result.answers).every((answer) => answer.status === 'ok')).toBe(true);
  });

  it('answers a repeated call from the decision cache without asking the host again', async () => {
    const system1 = await open('', 'cache_ttl_s = 60');
    await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    const again = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    expect(fake.requests).toHaveLength(1);
    expect(again.meta.cached).toBe(true);
    expect(again.answers.topic).toMatchObject({ status: 'ok', answer: { value: 'billing' } });
  });

  it('is a pool of replicas with `endpoints`: a failing replica leaves the call to the next', async () => {
    const replica = new DecisionsEngineFake({ apiKey: KEY });
    await replica.start();
    fake.fault = 'status-500';
    try {
      const system1 = await sandbox.open(
        `[gateway]\nprovider = "${PROVIDER}"\n[providers.${PROVIDER}]\n` +
          `endpoints = ["${fake.url.origin}", "${replica.url.origin}"]\n`,
        { [VARIABLE]: KEY },
      );
      const first = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
      const second = await system1.decide({ state: 'y', questions: THREE_QUESTIONS });
      for (const result of [first, second]) expect(result.answers.topic).toMatchObject({ status: 'ok' });
      expect(replica.requests).toHaveLength(2);
      expect(replica.last!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(fake.requests.length).toBeGreaterThan(0);
    } finally {
      await replica.stop();
    }
  });

  it.each([
    ['a wrong key (401)', 'status-401', 401, `the host refused the key in ${VARIABLE}: check it`],
    [
      'a rate limit (429), with its Retry-After',
      'status-429',
      429,
      '(retry after 1 s); the host is rate limiting this key',
    ],
  ] as const)('reports %s in words that name no key', async (_what, fault, status, words) => {
    fake.fault = fault;
    const system1 = await open();
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'provider_error', httpStatus: status, message: expect.stringContaining(words) },
    });
    expect(JSON.stringify(result) + sandbox.logs.join('\n')).not.toContain(KEY);
  });

  it('says which setting to check when the host knows no such model (404)', async () => {
    const system1 = await open('model = "gpt-5-sol"');
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
    expect(result.answers.refund).toEqual({
      status: 'error',
      error: {
        code: 'provider_error',
        httpStatus: 404,
        message: expect.stringContaining(
          'The model \'gpt-5-sol\' does not exist or you do not have access to it.; the host knows no model "gpt-5-sol" or no Decisions API at /v1/decisions: check providers.openai-decisions.model and path',
        ),
      },
    });
  });

  it('follows no redirect (307): the target never sees the request nor the key', async () => {
    const target = new RecordingServer();
    fake.redirectTo = `${(await target.start()).origin}/v1/decisions`;
    fake.redirectStatus = 307;
    fake.fault = 'redirect';
    try {
      const system1 = await open();
      const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
      expect(result.answers.refund).toMatchObject({
        status: 'error',
        error: {
          code: 'provider_error',
          httpStatus: 307,
          message: expect.stringContaining('redirect refused: HTTP 307'),
        },
      });
      expect(fake.last!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(target.hits).toEqual([]);
    } finally {
      await target.stop();
    }
  });

  it('sends no Authorization header to a host on this machine when no key is set (SGLang)', async () => {
    fake.apiKey = undefined;
    const system1 = await sandbox.open(
      `[gateway]\nprovider = "${PROVIDER}"\n[providers.${PROVIDER}]\nendpoint = "${fake.url.origin}"\n`,
    );
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS });
    expect(result.answers.topic).toMatchObject({ status: 'ok' });
    expect(fake.last!.headers.authorization).toBeUndefined();
  });

  describe('on Fireworks (path /inference/v1/decisions, at most 208 choices, text only)', () => {
    const FIREWORKS = 'path = "/inference/v1/decisions"\nmax_choices = 208\nimages = false';
    const manyChoices = (count: number) => ({
      pick: {
        type: 'choice' as const,
        instructions: 'Which one?',
        criteria: Object.fromEntries(Array.from({ length: count }, (_, i) => [`option-${i}`, null])),
      },
    });

    beforeEach(async () => {
      await fake.stop();
      fake = new DecisionsEngineFake({ apiKey: KEY, host: 'fireworks' });
      await fake.start();
    });

    it('posts at its path and answers 208 choices', async () => {
      const system1 = await open(FIREWORKS);
      const result = await system1.decide({ state: 'x', questions: manyChoices(208) });
      expect(fake.requestsTo('/inference/v1/decisions')).toHaveLength(1);
      expect(result.answers.pick).toMatchObject({ status: 'ok', answer: { value: 'option-0' } });
    });

    it('refuses 209 choices and images before sending, as configured', async () => {
      const system1 = await open(FIREWORKS);
      const over = await system1.decide({ state: 'x', questions: manyChoices(209) });
      const image = await system1.decide({
        state: 'x',
        questions: manyChoices(2),
        images: [{ mediaType: 'image/png', data: PIXEL }],
      });
      expect(over.answers.pick).toMatchObject({ error: { code: 'limit_exceeded' } });
      expect(image.answers.pick).toMatchObject({ error: { code: 'unsupported' } });
      expect(fake.requests).toHaveLength(0);
    });

    it("reports the host's own 400 when the settings promise more than it takes", async () => {
      const system1 = await open('path = "/inference/v1/decisions"');
      const result = await system1.decide({ state: 'x', questions: manyChoices(209) });
      expect(result.answers.pick).toMatchObject({
        status: 'error',
        error: {
          code: 'provider_error',
          httpStatus: 400,
          message: expect.stringContaining('between 2 and 208 choices'),
        },
      });
    });
  });
});

describe('openai-decisions through system1_decide, capabilities and health', () => {
  const engine = engineUnderTest(PROVIDER, () => new DecisionsEngineFake({ apiKey: KEY }));
  const env = { [VARIABLE]: KEY };

  describe('faults: the attempt fails in its own words and the mock answers', () => {
    const own: FaultExpectation[] = [
      ['status-500', 'error', 'The server had an error while processing your request.; the host failed (HTTP 500)'],
      ['status-401', 'error', `Incorrect API key provided.; the host refused the key in ${VARIABLE}`],
      ['status-403', 'error', `You are not allowed to use this model.; the host refused the key in ${VARIABLE}`],
      ['status-429', 'error', 'Rate limit reached for requests. (retry after 1 s); the host is rate limiting this key'],
      ['status-503', 'error', 'The engine is currently overloaded. (retry after 1 s); the host failed (HTTP 503)'],
    ];
    const transport = TRANSPORT_FAULTS.map(([fault, outcome, detail]): FaultExpectation =>
      fault === 'wrong-shape' ? [fault, outcome, 'without an "answers" list (got a string)'] : [fault, outcome, detail],
    );
    itHandlesEachFault(engine, [...TIMEOUT_FAULTS, ...own, ...transport], {
      provider: PROVIDER,
      secret: KEY,
      env,
      route: '/v1/decisions',
    });
  });

  it('decides a yes/no question as a predicate, and a choice with its options', async () => {
    const { gateway } = await engine.start({ env });
    expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({
      status: 'decided',
      provider: PROVIDER,
      decision: OPTIONS[0],
      confidence: 0.9,
      rationale: 'openai-decisions gpt-6-luna: rerun the pipeline=0.9, block the merge=0.1',
    });
    expect(engine.fake.last!.body).toMatchObject({
      questions: [{ type: 'choice', choices: OPTIONS.map((value) => ({ value })) }],
    });
  });

  it('shows in system1_capabilities with its limits, key variable and settings', async () => {
    const { app } = await engine.start({ env, settings: 'max_choices = 208\nimages = false' });
    const capabilities = app.get(CapabilitiesService).capabilities();
    expect(capabilities.config_errors).toEqual([]);
    expect(capabilities.providers[PROVIDER]).toMatchObject({
      batch: true,
      probabilities: true,
      model: 'gpt-6-luna',
      max_options: 208,
      remote: false,
      questions: { types: ['choice', 'noul', 'score'], max_questions: 400, max_options: 208 },
    });
    expect(capabilities.providers[PROVIDER]!.questions).not.toHaveProperty('images');
    const published = capabilities.available_providers.find((provider) => provider.name === PROVIDER)!;
    expect(published.key_variable).toBe(VARIABLE);
    const defaults = Object.entries(published.settings as Record<string, { default?: unknown }>).map(([key, spec]) => [
      key,
      spec.default,
    ]);
    expect(Object.fromEntries(defaults)).toEqual({
      endpoint: 'https://api.openai.com',
      path: '/v1/decisions',
      model: 'gpt-6-luna',
      max_choices: 255,
      max_questions: 400,
      images: true,
    });
  });

  it('is healthy when the models list beside its path names its model, sending the key', async () => {
    const { health } = await engine.start({ env });
    const report = await health.health();
    expect(report.providers[0]).toMatchObject({
      name: PROVIDER,
      ok: true,
      detail: expect.stringMatching(/^127\.0\.0\.1:\d+ is up and lists model "gpt-6-luna"$/),
    });
    expect(engine.fake.requestsTo('/v1/models')[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('is up but says so when the model is not listed, and not ok when the key is refused', async () => {
    engine.fake.models = ['gpt-6-luna-mini'];
    const { health } = await engine.start({ env: { [VARIABLE]: 'a-wrong-key' } });
    expect((await health.health()).providers[0]).toMatchObject({
      ok: false,
      detail: expect.stringContaining(`the host refused the key in ${VARIABLE}`),
    });
    engine.fake.apiKey = undefined;
    expect((await health.health()).providers[0]).toMatchObject({
      ok: true,
      detail: expect.stringContaining('model "gpt-6-luna" is not listed (lists: gpt-6-luna-mini)'),
    });
  });

  it.each([
    ['a path that is not one', 'path = "v1/decisions"', 'providers.openai-decisions.path', 'must be a path'],
    [
      'plain http to another machine',
      'endpoint = "http://api.openai.com"',
      'providers.openai-decisions.endpoint',
      'must use https',
    ],
    [
      'allow_remote, which a hosted API does not take',
      'allow_remote = true',
      'providers.openai-decisions.allow_remote',
      'is not a setting',
    ],
    ['more choices than the API takes', 'max_choices = 256', 'providers.openai-decisions.max_choices', '255'],
  ])('refuses %s as a config error naming the key', async (_what, lines, key, words) => {
    const app = await gatewayApp({
      toml: `[gateway]\nprovider = "${PROVIDER}"\n[providers.${PROVIDER}]\n${lines}`,
      env,
    });
    try {
      const capabilities = app.get(CapabilitiesService).capabilities();
      expect(capabilities.config_errors).toEqual([
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
