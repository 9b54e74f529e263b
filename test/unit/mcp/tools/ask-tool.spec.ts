/**
 * system1_ask through the MCP SDK client: several typed questions in one engine pass, the approximate flag of
 * a choice-only engine, a malformed call failing whole with the field named, a runtime failure confined to
 * its question, images and longContext reaching the engine, and the failed primary reported under fallbacks.
 */
import Ajv2020 from 'ajv/dist/2020';
import { TypedSystemOneFake } from '../../../fakes/typed-systemone.fake';
import { TypeSafeFake } from '../../../fakes/typesafe.fake';
import { type InMemoryGateway, InMemoryGateways } from '../../../helpers/in-memory-mcp';
import { readJson } from '../../../helpers/repo-json';
import type { Json } from '../../../helpers/tool-reply';

const gateways = InMemoryGateways.perTest();

const QUESTIONS = [
  { id: 'refund', type: 'noul', instructions: 'Is the user asking about a refund?' },
  {
    id: 'topic',
    type: 'choice',
    instructions: 'Choose a topic.',
    criteria: { billing: 'Billing refund', technical: 'Technical support' },
  },
  { id: 'urgency', type: 'score', instructions: 'Rate urgency.', criteria: ['Normal', 'Urgent', 'Critical'] },
];
const ASK = { state: 'The user asked about a refund for a double charge.', questions: QUESTIONS };

let fake: TypedSystemOneFake;
beforeEach(async () => {
  fake = new TypedSystemOneFake();
  await fake.start();
});
afterEach(() => fake.stop());

const onFake = (extra = '') =>
  gateways.connect({
    toml: `[gateway]\nprovider = "systemone"\n${extra}\n[providers.systemone]\nendpoint = "${fake.url.origin}"\n`,
  });
const ask = async (gateway: InMemoryGateway, args: Json) => gateway.call('system1_ask', args);

it('answers three questions of different types in one engine request, each typed', async () => {
  fake.noulOf.refund = 0.9;
  fake.pickOption.topic = 'billing';
  fake.levelOf.urgency = 1;
  const gateway = await onFake();
  const { body, isError } = await ask(gateway, ASK);
  expect(isError).toBe(false);
  expect(fake.requestsTo('/v1/systemone')).toHaveLength(1);
  expect(Object.keys((fake.requestsTo('/v1/systemone')[0].body as { questions: object }).questions)).toEqual([
    'refund',
    'topic',
    'urgency',
  ]);
  expect(body.answers.refund).toEqual({
    status: 'ok',
    answer: { type: 'noul', value: true, probabilityTrue: 0.9, confidence: expect.closeTo(0.8, 6), calibrated: false },
  });
  expect(body.answers.topic).toMatchObject({
    status: 'ok',
    answer: { type: 'choice', value: 'billing', confidence: 0.97 },
  });
  expect(body.answers.urgency).toMatchObject({ status: 'ok', answer: { type: 'score', level: 1, confidence: 0.95 } });
  expect(body.model).toEqual({ provider: 'systemone', model: expect.any(String) });
  expect(body.fallbacks).toBeUndefined();
  const validate = new Ajv2020({ strict: false }).compile(readJson('schema/ask-response.json'));
  expect(validate(body) ? [] : validate.errors).toEqual([]);
});

it('says approximate when a choice-only engine gives one confidence instead of probabilities', async () => {
  const gateway = await gateways.connect({
    env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_RESPONSE: JSON.stringify({ decision: 'yes', confidence: 0.8 }) },
  });
  const { body } = await ask(gateway, { state: { ticket: 'x' }, questions: [QUESTIONS[0]] });
  expect(body.answers.refund).toMatchObject({ status: 'ok', answer: { type: 'noul', probabilityTrue: 0.8 } });
  expect(body.approximate).toBe(true);
});

it.each([
  [
    'an unknown question type',
    { ...ASK, questions: [{ id: 'q', type: 'rank', instructions: '?' }] },
    'questions[0].type must be one of choice, noul, score, box',
  ],
  [
    'a choice with one candidate',
    { ...ASK, questions: [{ id: 'q', type: 'choice', instructions: '?', criteria: { a: null } }] },
    'questions[0].criteria must be an object with at least two candidates',
  ],
  ['a repeated id', { ...ASK, questions: [QUESTIONS[0], QUESTIONS[0]] }, 'questions[1].id repeats "refund"'],
  ['an unknown field', { ...ASK, temperature: 0 }, '"temperature" is not a field of the system1_ask arguments'],
  [
    'a box without an image',
    { ...ASK, questions: [{ id: 'mug', type: 'box', instructions: 'Find the mug.' }] },
    'questions[0] is a box question, which needs at least one image',
  ],
])('fails the whole call on %s, naming the field, without asking the engine', async (_what, args, message) => {
  const gateway = await onFake();
  const { body, isError } = await ask(gateway, args);
  expect(isError).toBe(true);
  expect(body).toEqual({
    status: 'error',
    error: { code: 'invalid_request', message: expect.stringContaining(message) },
  });
  expect(fake.requestsTo('/v1/systemone')).toHaveLength(0);
});

it('keeps a runtime failure on its own question: a bad answer fails that question alone', async () => {
  fake.reshape = (reply: Json) => ({
    ...reply,
    answers: { ...reply.answers, topic: { type: 'choice', choice: 'refunds', probabilities: { refunds: 1 } } },
  });
  const gateway = await onFake();
  const { body, isError } = await ask(gateway, ASK);
  expect(isError).toBe(false);
  expect(body.answers.topic).toEqual({
    status: 'error',
    error: { code: 'invalid_response', message: expect.stringContaining('"topic"') },
  });
  expect(body.answers.refund.status).toBe('ok');
  expect(body.answers.urgency.status).toBe('ok');
});

it('is listed with its schema, which system1_capabilities publishes as schema/ask-request.json', async () => {
  const gateway = await onFake();
  const tools = (await gateway.client.listTools()).tools;
  const listed = tools.find((tool) => tool.name === 'system1_ask');
  expect(listed?.inputSchema).toEqual(readJson('schema/ask-request.json'));
  expect(listed?.description).toMatch(/zero-based expected criteria index/);
  expect((await gateway.capabilities()).ask_request_schema).toEqual(readJson('schema/ask-request.json'));
});

describe('on TypeSafe jev-1.14.0, which reads images', () => {
  const KEY = 'e2e-ask-typesafe-key-8d21';
  /** A 1x1 PNG. */
  const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const IMAGES = [{ mediaType: 'image/png', data: PIXEL }];
  let typesafe: TypeSafeFake;
  beforeEach(async () => {
    typesafe = new TypeSafeFake({ apiKey: KEY });
    await typesafe.start();
  });
  afterEach(() => typesafe.stop());
  const onTypeSafe = (gateway = '') =>
    gateways.connect({
      toml: `[gateway]\nprovider = "typesafe"\n${gateway}\n[providers.typesafe]\nendpoint = "${typesafe.url.origin}"\nmodel = "jev-1.14.0"\n`,
      env: { SYSTEM1_TYPESAFE_API_KEY: KEY },
    });

  it('sends the images and longContext to the engine', async () => {
    const gateway = await onTypeSafe();
    const { body, isError } = await ask(gateway, { ...ASK, images: IMAGES, longContext: true });
    expect(isError).toBe(false);
    expect(body.model).toMatchObject({ provider: 'typesafe' });
    const sent = typesafe.requestsTo('/v1/systemone').map((request) => request.body);
    expect(sent).toEqual([expect.objectContaining({ images: IMAGES, longContext: true })]);
  });

  it('reports the failed primary under fallbacks when the fallback answers, and none when the primary does', async () => {
    const gateway = await onTypeSafe('fallback = ["mock"]');
    const answered = await ask(gateway, ASK);
    expect(answered.body.model).toMatchObject({ provider: 'typesafe' });
    expect(answered.body.fallbacks).toBeUndefined();
    typesafe.fault = 'status-503';
    const { body, isError } = await ask(gateway, ASK);
    expect(isError).toBe(false);
    expect(body.model).toMatchObject({ provider: 'mock' });
    expect(body.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice' } });
    expect(body.fallbacks).toEqual([
      {
        provider: 'typesafe',
        error: { code: 'unavailable', httpStatus: 503, message: expect.stringContaining('HTTP 503') },
      },
    ]);
  });
});
