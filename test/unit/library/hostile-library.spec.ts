import fc from 'fast-check';
import { System1InputError } from '../../../src/decisions/input-error';
import { QUESTION_ERROR_CODES } from '../../../src/library/library.types';
import { LibrarySandbox } from './library-setup';

const hostileValue = fc.oneof(
  fc.anything({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\ud800', 'NaN', '', ' ', '__proto__', 'constructor', 'prototype'),
  fc.constantFrom(Number.NaN, Infinity, -0, 1e308),
);
const TYPES = ['choice', 'noul', 'score', 'box', 'rank', '', '__proto__'];
const hostileQuestion = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...TYPES), hostileValue),
    instructions: fc.oneof(fc.string({ maxLength: 30 }), hostileValue),
    criteria: fc.oneof(
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'true', 'false')), fc.oneof(fc.constant(null), fc.string({ maxLength: 10 })), { maxKeys: 5 }),
      fc.array(fc.string({ maxLength: 10 }), { maxLength: 12 }),
      hostileValue,
    ),
  },
  { requiredKeys: [] },
);
const hostileRequest = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.record(
    {
      state: hostileValue,
      questions: fc.oneof(fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor')), hostileQuestion, { maxKeys: 4 }), hostileValue),
      images: hostileValue,
      longContext: hostileValue,
      model: fc.oneof(fc.record({ provider: fc.constantFrom('mock', 'nonesuch', ''), model: fc.string({ maxLength: 5 }) }, { requiredKeys: ['provider'] }), hostileValue),
      timeoutMs: fc.oneof(fc.constantFrom(1, 50, 0, -1, 1.5), hostileValue),
      minConfidence: hostileValue,
    },
    { requiredKeys: [] },
  ),
);

describe('hostile calls of the library API', () => {
  let sandbox: LibrarySandbox;
  beforeAll(() => (sandbox = new LibrarySandbox()));
  afterAll(() => sandbox.close());

  it('either throw System1InputError or answer every question asked with ok or a known error code; no prototype is polluted', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (request) => {
        let result;
        try {
          result = await system1.decide(request as never);
        } catch (error) {
          expect(error).toBeInstanceOf(System1InputError);
          expect((error as Error).message.length).toBeGreaterThan(0);
          return;
        }
        const asked = Object.keys((request as { questions: object }).questions);
        expect(Object.keys(result.answers).sort()).toEqual([...asked].sort());
        for (const answer of Object.values(result.answers)) {
          if (answer.status === 'error') expect(QUESTION_ERROR_CODES).toContain(answer.error.code);
          else expect(answer.status).toBe('ok');
        }
        expect(result.meta.requestId).toMatch(/^[0-9a-f-]{36}$/);
        expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
        expect(({} as Record<string, unknown>).type).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('read any reply an engine sends: each answer is a checked typed answer or that question’s invalid_response', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    let reply: unknown;
    system1.registerProvider('wild', {
      capabilities: () => ({ batch: true, probabilities: true, questions: { types: ['choice', 'noul', 'score'] } }),
      evaluate: async () => reply as never,
    });
    const engineAnswer = fc.oneof(
      hostileValue,
      fc.record({ type: fc.constantFrom('choice', 'noul', 'score', 'box'), choice: hostileValue, noul: hostileValue, score: hostileValue, probabilities: fc.oneof(hostileValue, fc.dictionary(fc.constantFrom('a', 'b', '0', '1', '__proto__'), fc.double())), legend: hostileValue }, { requiredKeys: ['type'] }),
    );
    const questions = {
      pick: { type: 'choice' as const, instructions: 'Pick.', criteria: { a: null, b: 'the other' } },
      yes: { type: 'noul' as const, instructions: 'Yes?' },
      level: { type: 'score' as const, instructions: 'How much?', criteria: ['low', 'high'] },
    };
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileValue, fc.record({ answers: fc.oneof(hostileValue, fc.dictionary(fc.constantFrom('pick', 'yes', 'level', 'extra'), engineAnswer)), errors: hostileValue }, { requiredKeys: [] })), async (wild) => {
        reply = wild;
        const result = await system1.decide({ state: 'x', questions, model: { provider: 'wild' } });
        for (const [id, answer] of Object.entries(result.answers)) {
          if (answer.status === 'error') {
            expect(QUESTION_ERROR_CODES).toContain(answer.error.code);
            continue;
          }
          expect(answer.answer.type).toBe(questions[id as keyof typeof questions].type);
          expect(answer.answer.confidence).toBeGreaterThanOrEqual(0);
          expect(answer.answer.confidence).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});
