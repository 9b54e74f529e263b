/**
 * system1_ask's caps, asked by an MCP client: a call over a cap (the 40,000-level score that held the event
 * loop for seconds, too many candidates, too many questions) is refused as invalid_request naming the field
 * before any engine is asked; a call at every cap is answered, while the server keeps answering other calls;
 * the caps are what system1_capabilities and the schema publish.
 */
import { CANDIDATES_MAX, LEVELS_MAX, QUESTIONS_MAX } from '../../../../src/common/limits';
import { eventually } from '../../../helpers/eventually';
import { TypedSystemOneFake } from '../../../fakes/typed-systemone.fake';
import { type InMemoryGateway, InMemoryGateways } from '../../../helpers/in-memory-mcp';
import { readJson } from '../../../helpers/repo-json';
import type { Json } from '../../../helpers/tool-reply';

const gateways = InMemoryGateways.perTest();

let fake: TypedSystemOneFake;
beforeEach(async () => {
  fake = new TypedSystemOneFake();
  // An engine whose choice takes as many candidates as the gateway lets through.
  fake.maxOptions = Math.max(CANDIDATES_MAX, LEVELS_MAX);
  await fake.start();
});
afterEach(() => fake.stop());

const onFake = () =>
  gateways.connect({
    toml: `[gateway]\nprovider = "systemone"\n[providers.systemone]\nendpoint = "${fake.url.origin}"\n`,
  });
const levels = (count: number) => Array.from({ length: count }, (_, i) => `level ${i}`);
const candidates = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, null]));
const score = (id: string, count: number) => ({ id, type: 'score', instructions: 'Rate it.', criteria: levels(count) });

it.each([
  [
    'a score of 40,000 levels (300 KB)',
    [score('q', 40_000)],
    'questions[0].criteria',
    `must hold at most ${LEVELS_MAX} levels (got 40000)`,
  ],
  [
    'a score one level over the cap',
    [score('q', LEVELS_MAX + 1)],
    'questions[0].criteria',
    `must hold at most ${LEVELS_MAX} levels (got ${LEVELS_MAX + 1})`,
  ],
  [
    'a choice one candidate over the cap',
    [{ id: 'q', type: 'choice', instructions: 'Pick.', criteria: candidates(CANDIDATES_MAX + 1) }],
    'questions[0].criteria',
    `must hold at most ${CANDIDATES_MAX} candidates (got ${CANDIDATES_MAX + 1})`,
  ],
  [
    'one question over the cap',
    Array.from({ length: QUESTIONS_MAX + 1 }, (_, i) => score(`q${i}`, 2)),
    'questions',
    `must hold at most ${QUESTIONS_MAX} questions (got ${QUESTIONS_MAX + 1})`,
  ],
])(
  'refuses %s as invalid_request naming the field, before any engine is asked',
  async (_what, questions, field, problem) => {
    const gateway = await onFake();
    const { body, isError } = await gateway.call('system1_ask', { state: 'x', questions });
    expect(isError).toBe(true);
    expect(body).toEqual({
      status: 'error',
      error: { code: 'invalid_request', message: `invalid request: ${field} ${problem}` },
    });
    expect(fake.requestsTo('/v1/systemone')).toHaveLength(0);
  },
);

it('answers a call at every cap, and answers a health call while that one is in flight', async () => {
  const gateway = await onFake();
  let release!: () => void;
  fake.gate = new Promise<void>((resolve) => (release = resolve));
  const questions = [
    ...Array.from({ length: QUESTIONS_MAX - 1 }, (_, i) => score(`s${i}`, LEVELS_MAX)),
    { id: 'pick', type: 'choice', instructions: 'Pick.', criteria: candidates(CANDIDATES_MAX) },
  ];
  let answered = false;
  const asked = gateway.call('system1_ask', { state: 'x', questions }).finally(() => (answered = true));
  await eventually(() => fake.requestsTo('/v1/systemone').length === 1, 'the engine received the call');

  const health = await gateway.health();
  expect(health.providers[0]).toMatchObject({ name: 'systemone', ok: true });
  expect(answered).toBe(false);

  release();
  const { body, isError } = await asked;
  expect(isError).toBe(false);
  expect(Object.keys(body.answers)).toHaveLength(QUESTIONS_MAX);
  for (const [id, answer] of Object.entries(body.answers as Record<string, Json>)) {
    if (id === 'pick') {
      expect(answer).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'c0' } });
      continue;
    }
    // Wider than llama-server's own score, so asked as a choice among the levels and read back as a score.
    expect(answer).toMatchObject({ status: 'ok', answer: { type: 'score', level: 0, confidence: fake.choiceTop } });
    expect(answer.answer.distribution).toHaveLength(LEVELS_MAX);
  }
});

it('publishes the caps in system1_capabilities and in the ask request schema', async () => {
  const gateway: InMemoryGateway = await onFake();
  const capabilities = await gateway.capabilities();
  expect(capabilities.limits).toMatchObject({
    questions_max: QUESTIONS_MAX,
    candidates_max: CANDIDATES_MAX,
    levels_max: LEVELS_MAX,
    options_max: 256,
  });
  const schema = readJson('schema/ask-request.json');
  expect(capabilities.ask_request_schema).toEqual(schema);
  expect(schema.properties.questions.maxItems).toBe(QUESTIONS_MAX);
  expect(schema.$defs.AskChoiceQuestionDto.properties.criteria.maxProperties).toBe(CANDIDATES_MAX);
  expect(schema.$defs.AskScoreQuestionDto.properties.criteria.maxItems).toBe(LEVELS_MAX);
});
