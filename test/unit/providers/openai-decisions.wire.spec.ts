/**
 * The openai-decisions provider's wire, without a server: the Decisions API body built for typed questions
 * (wire-contracts §10.1), and a reply (§10.2) read back into answers the pipeline reads, by position.
 */
import { DecisionErrorCode, MalformedResponseError, ProviderError } from '../../../src/decisions/errors/decision-error';
import type { EvaluateRequest } from '../../../src/decisions/registry/provider.interface';
import { asChoice } from '../../../src/providers/choice/choice-provider';
import { decisionsQuestion, decisionsRequest } from '../../../src/providers/openai-decisions/decisions-request';
import { readDecisionsReply } from '../../../src/providers/openai-decisions/decisions-reply';

const QUESTIONS: EvaluateRequest['questions'] = {
  duplicate_charge: {
    type: 'noul',
    instructions: 'Was the customer charged twice?',
    criteria: { true: 'two charges for one order', false: { charges: 1 } },
  },
  team: {
    type: 'choice',
    instructions: { ask: 'Which team?' },
    criteria: { billing: 'payments and refunds', support: null, shipping: 'shipping', legal: { area: 'disputes' } },
  },
  urgency: { type: 'score', instructions: 'How urgent?', criteria: ['low', 'medium', { level: 'high' }] },
};

const SENT = decisionsRequest({ questions: QUESTIONS }, 'gpt-6-luna').questions;

describe('the Decisions API request', () => {
  it('asks every question in order, named by its id, in the API shape', () => {
    expect(decisionsRequest({ state: { ticket: 'charged twice' }, questions: QUESTIONS }, 'gpt-6-luna')).toEqual({
      model: 'gpt-6-luna',
      input: '{"ticket":"charged twice"}',
      questions: [
        {
          type: 'predicate',
          name: 'duplicate_charge',
          instructions:
            'Was the customer charged twice? Yes means: two charges for one order. No means: {"charges":1}.',
        },
        {
          type: 'choice',
          name: 'team',
          instructions: '{"ask":"Which team?"}',
          choices: [
            { value: 'billing', description: 'payments and refunds' },
            { value: 'support' },
            { value: 'shipping' },
            { value: 'legal', description: '{"area":"disputes"}' },
          ],
        },
        {
          type: 'score',
          name: 'urgency',
          instructions: 'How urgent?',
          levels: [{ label: 'low' }, { label: 'medium' }, { label: '{"level":"high"}' }],
        },
      ],
    });
  });

  it('words what true and false mean as the choice engines do', () => {
    const { instructions } = decisionsQuestion('duplicate_charge', QUESTIONS.duplicate_charge);
    expect(asChoice('duplicate_charge', QUESTIONS.duplicate_charge).text).toBe(instructions);
    expect(decisionsQuestion('q', { type: 'noul', instructions: 'Safe?' }).instructions).toBe('Safe?');
  });

  it('sends a text state as it is, and {} when the call gave none', () => {
    expect(decisionsRequest({ state: 'a refund?', questions: QUESTIONS }, 'm').input).toBe('a refund?');
    expect(decisionsRequest({ state: ['a', 1], questions: QUESTIONS }, 'm').input).toBe('["a",1]');
    expect(decisionsRequest({ questions: QUESTIONS }, 'm').input).toBe('{}');
  });

  it('sends images as one user message: the state as input_text, each image as a data URL', () => {
    const images = [
      { mediaType: 'image/png' as const, data: 'iVBORw0K' },
      { mediaType: 'image/jpeg' as const, data: '/9j/4AAQ' },
    ];
    expect(decisionsRequest({ state: 'look', questions: QUESTIONS, images }, 'm').input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0K' },
          { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4AAQ' },
        ],
      },
    ]);
  });

  it('has no box question (the capabilities keep one from reaching it)', () => {
    expect(() => decisionsQuestion('where', { type: 'box', instructions: 'Where is the cat?' })).toThrow(ProviderError);
  });
});

const reply = (answers: unknown[], extra: Record<string, unknown> = {}) => ({ model: 'gpt-6-luna', answers, ...extra });
const PREDICATE = { type: 'predicate', name: 'duplicate_charge', probability: 0.97 };
const CHOICE = {
  type: 'choice',
  name: 'team',
  choice: 'billing',
  confidence: 0.9,
  probabilities: [
    { value: 'billing', probability: 0.94 },
    { value: 'support', probability: 0.04 },
    { value: 'shipping', probability: 0.01 },
    { value: 'legal', probability: 0.01 },
  ],
};
const SCORE = {
  type: 'score',
  name: 'urgency',
  score: 1.8,
  confidence: 0.7,
  probabilities: [
    { value: 0, label: 'low', probability: 0.05 },
    { value: 1, label: 'medium', probability: 0.1 },
    { value: 2, label: '{"level":"high"}', probability: 0.85 },
  ],
};

describe('the Decisions API reply', () => {
  it('maps each answer back to its question in the System One shape, with the model and the token counts', () => {
    const usage = {
      input_tokens: 812,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 815,
    };
    expect(readDecisionsReply(reply([PREDICATE, CHOICE, SCORE], { usage }), SENT, 'openai-decisions')).toEqual({
      model: 'gpt-6-luna',
      usage: { inputTokens: 812, outputTokens: 3 },
      answers: {
        duplicate_charge: { type: 'noul', noul: 0.97, rationale: 'openai-decisions gpt-6-luna' },
        team: {
          type: 'choice',
          choice: 'billing',
          probabilities: { billing: 0.94, support: 0.04, shipping: 0.01, legal: 0.01 },
          rationale: 'openai-decisions gpt-6-luna: billing=0.94, support=0.04, shipping=0.01, legal=0.01',
        },
        urgency: {
          type: 'score',
          score: 1.8,
          probabilities: { '0': 0.05, '1': 0.1, '2': 0.85 },
          rationale: 'openai-decisions gpt-6-luna: 2=0.85, 1=0.1, 0=0.05',
        },
      },
    });
  });

  it('fails a refused question alone, as an abstention, and keeps the others', () => {
    const read = readDecisionsReply(reply([PREDICATE, { type: 'refusal', name: 'team' }, SCORE]), SENT, 'od');
    expect(read.errors).toEqual({
      team: { code: DecisionErrorCode.Abstained, message: 'od refused to answer "team"' },
    });
    expect(Object.keys(read.answers)).toEqual(['duplicate_charge', 'urgency']);
  });

  it.each([
    ['not an object', 'no', 'answered a string instead of a Decisions API reply object'],
    ['no answers list', { answers: {} }, 'without an "answers" list (got an object)'],
    ['an answer short', reply([PREDICATE, CHOICE]), 'gave 2 answers to 3 questions'],
    ['an answer too many', reply([PREDICATE, CHOICE, SCORE, SCORE]), 'gave 4 answers to 3 questions'],
    [
      'answers out of order',
      reply([CHOICE, PREDICATE, SCORE]),
      'answer 1 (for question "duplicate_charge") is named "team": answers out of order',
    ],
    ['an unnamed answer', reply([{ ...PREDICATE, name: null }, CHOICE, SCORE]), 'is named null'],
    [
      'an answer of another type',
      reply([PREDICATE, { ...CHOICE, type: 'score' }, SCORE]),
      'is of type "score", not choice',
    ],
    ['an answer that is not an object', reply([PREDICATE, 7, SCORE]), 'answer 2 (for question "team") is a number'],
  ])('refuses the whole reply for %s', (_what, body, words) => {
    expect(() => readDecisionsReply(body, SENT, 'od')).toThrow(MalformedResponseError);
    expect(() => readDecisionsReply(body, SENT, 'od')).toThrow(words);
  });

  it.each([
    [
      'a boolean choice (we send only strings)',
      { ...CHOICE, choice: false },
      'the choice false is not one of the values sent',
    ],
    [
      'a boolean value in the probabilities',
      { ...CHOICE, probabilities: [...CHOICE.probabilities.slice(0, 3), { value: false, probability: 0.01 }] },
      '"probabilities" hold false, not a value sent',
    ],
    [
      'a value twice',
      { ...CHOICE, probabilities: [...CHOICE.probabilities, CHOICE.probabilities[0]] },
      '"probabilities" name "billing" twice',
    ],
    [
      'probabilities that are not a list',
      { ...CHOICE, probabilities: { billing: 1 } },
      '"probabilities" is an object, not a list',
    ],
  ])('fails the choice alone for %s', (_what, answer, words) => {
    const read = readDecisionsReply(reply([PREDICATE, answer, SCORE]), SENT, 'od');
    expect(read.errors).toEqual({
      team: { code: DecisionErrorCode.InvalidResponse, message: `od answer to "team": ${words}` },
    });
    expect(Object.keys(read.answers)).toEqual(['duplicate_charge', 'urgency']);
  });

  it.each([
    ['a level out of range', [{ value: 3, label: 'x', probability: 1 }], 'hold the level 3, not an index from 0 to 2'],
    ['a level that is not an index', [{ value: '1', probability: 1 }], 'hold the level "1"'],
    [
      'a label not sent',
      [{ value: 1, label: 'Medium', probability: 1 }],
      'level 1 is labelled "Medium", not the level sent',
    ],
  ])('fails the score alone for %s', (_what, probabilities, words) => {
    const read = readDecisionsReply(reply([PREDICATE, CHOICE, { ...SCORE, probabilities }]), SENT, 'od');
    expect(read.errors?.urgency).toEqual({
      code: DecisionErrorCode.InvalidResponse,
      message: expect.stringContaining(words),
    });
    expect(Object.keys(read.answers)).toEqual(['duplicate_charge', 'team']);
  });

  it('keeps values named like Object.prototype members as keys of the probabilities', () => {
    const probabilities = [
      { value: 'billing', probability: 0.9 },
      { value: '__proto__', probability: 0.06 },
      { value: 'constructor', probability: 0.04 },
    ];
    const read = readDecisionsReply(reply([PREDICATE, { ...CHOICE, probabilities }, SCORE]), SENT, 'od');
    const team = read.answers.team as { probabilities: Record<string, number> };
    expect(Object.keys(team.probabilities)).toEqual(['billing', '__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(team.probabilities, '__proto__')?.value).toBe(0.06);
    expect(Object.getPrototypeOf(team.probabilities)).toBe(Object.prototype);
  });

  it('leaves out token counts that are not counts, and a reply without usage has none', () => {
    const read = readDecisionsReply(
      reply([PREDICATE, CHOICE, SCORE], { usage: { input_tokens: -1, output_tokens: 2 } }),
      SENT,
      'od',
    );
    expect(read.usage).toEqual({ outputTokens: 2 });
    expect(readDecisionsReply(reply([PREDICATE, CHOICE, SCORE]), SENT, 'od')).not.toHaveProperty('usage');
  });
});
