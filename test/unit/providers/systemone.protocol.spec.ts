import { readAnswer } from '../../../src/decisions/pipeline/answer-reader';
import { selfDescribed } from '../../../src/decisions/pipeline/question-text';
import { MalformedResponseError } from '../../../src/decisions/errors/decision-error';
import type { ChoiceQuestion, Question } from '../../../src/decisions/questions/question.types';
import {
  probabilitiesBestFirst,
  readSystemOneEnvelope,
  typedSystemOneRequest,
} from '../../../src/providers/system-one/systemone-protocol';

const MERGE: ChoiceQuestion = {
  type: 'choice',
  instructions: 'Rerun or block?',
  criteria: { rerun: null, block: null },
};
const DESTRUCTIVE: Question = { type: 'noul', instructions: 'Is rm -rf / destructive?' };

const choice = (fields: Record<string, unknown> = {}) => ({
  type: 'choice',
  choice: 'block',
  probabilities: { rerun: 0.48, block: 0.52 },
  ...fields,
});

describe('the System One request', () => {
  it('sends bare candidates as labels where asked (else as written), yes/no as a choice where asked, and {} for no state', () => {
    expect(
      typedSystemOneRequest(
        { state: { cwd: '/repo' }, questions: { decision: MERGE, destructive: DESTRUCTIVE } },
        { model: 'm', noulAsChoice: true, bareCandidates: 'labels' },
      ),
    ).toEqual({
      model: 'm',
      state: { cwd: '/repo' },
      questions: {
        decision: { type: 'choice', instructions: 'Rerun or block?', criteria: ['rerun', 'block'] },
        destructive: { type: 'choice', instructions: 'Is rm -rf / destructive?', criteria: { yes: null, no: null } },
      },
    });
    expect(
      typedSystemOneRequest(
        { questions: { decision: MERGE, destructive: DESTRUCTIVE } },
        { noulAsChoice: false, bareCandidates: 'self-described' },
      ),
    ).toEqual({
      state: {},
      questions: { decision: MERGE, destructive: DESTRUCTIVE },
    });
  });

  it('sends a question whose id is named like an Object.prototype member under that id', () => {
    const questions = JSON.parse('{"__proto__": {"type": "noul", "instructions": "Safe?"}}') as Record<
      string,
      Question
    >;
    const body = typedSystemOneRequest({ questions }, { noulAsChoice: true, bareCandidates: 'labels' });
    expect(JSON.stringify(body)).toBe(
      '{"state":{},"questions":{"__proto__":{"type":"choice","instructions":"Safe?","criteria":{"yes":null,"no":null}}}}',
    );
  });

  it('sends options named like Object.prototype members as candidates of their own', () => {
    const criteria = selfDescribed(['__proto__', 'constructor', 'a']);
    expect(Object.getPrototypeOf(criteria)).toBe(Object.prototype);
    expect(Object.keys(criteria)).toEqual(['__proto__', 'constructor', 'a']);
    const body = typedSystemOneRequest(
      { questions: { decision: { type: 'choice', instructions: 'Which?', criteria } } },
      { noulAsChoice: false, bareCandidates: 'labels' },
    );
    expect(JSON.stringify(body.questions)).toBe(
      '{"decision":{"type":"choice","instructions":"Which?","criteria":["__proto__","constructor","a"]}}',
    );
  });

  it('sends described candidates as written', () => {
    const described: ChoiceQuestion = {
      type: 'choice',
      instructions: 'Which team?',
      criteria: { billing: 'Refunds', technical: null },
    };
    expect(
      typedSystemOneRequest(
        { state: 'x', questions: { team: described } },
        { noulAsChoice: false, bareCandidates: 'labels' },
      ).questions,
    ).toEqual({ team: described });
  });
});

describe('reading a System One reply', () => {
  it.each([
    ['a non-object body', 'yes', 'engine answered a string instead of a System One reply object'],
    ['no answers', { model: 'x' }, 'without an "answers" object (got nothing)'],
    ['answers as a list', { answers: [choice()] }, 'without an "answers" object (got an array)'],
  ])('refuses %s as a whole', (_name, body, message) => {
    const read = () => readSystemOneEnvelope(body, 'engine');
    expect(read).toThrow(MalformedResponseError);
    expect(read).toThrow(message);
  });

  it.each([
    ['a missing answer', undefined, 'missing from the reply'],
    ['an answer that is not an object', 'block', 'not an object (got a string)'],
    ['a noul answer', { type: 'noul', noul: 0.9 }, 'type "noul" instead of "choice"'],
    [
      'a choice that is not a candidate',
      choice({ choice: 'merge' }),
      'the choice "merge" is not one of the candidates sent',
    ],
    ['a numeric choice', choice({ choice: 1 }), 'the choice 1 is not one of the candidates sent'],
    ['no probabilities', choice({ probabilities: undefined }), '"probabilities" is nothing, not an object'],
    [
      'probabilities over another option',
      choice({ probabilities: { rerun: 0.4, block: 0.5, merge: 0.1 } }),
      '"probabilities" name "merge"',
    ],
    [
      'probabilities lacking an option',
      choice({ probabilities: { block: 1 } }),
      '"probabilities" lack the option "rerun"',
    ],
    [
      'a probability outside [0, 1]',
      choice({ probabilities: { rerun: -0.2, block: 1.2 } }),
      'the probability of "rerun" is -0.2',
    ],
    [
      'a probability that is text',
      choice({ probabilities: { rerun: '0.5', block: 0.5 } }),
      'the probability of "rerun" is "0.5"',
    ],
    [
      'probabilities summing to 0.9',
      choice({ probabilities: { rerun: 0.4, block: 0.5 } }),
      '"probabilities" sum to 0.9, not about 1',
    ],
    ['probabilities summing to 1.05', choice({ probabilities: { rerun: 0.5, block: 0.55 } }), 'sum to 1.05'],
  ])('refuses %s for that question alone, naming the problem', (_name, answer, problem) => {
    const read = readAnswer(answer, MERGE);
    expect(read).toEqual({ ok: false, problem: expect.stringContaining(problem) });
  });

  it('reads a good answer with its rationale, tolerating rounding', () => {
    expect(
      readAnswer(choice({ probabilities: { rerun: 0.48, block: 0.53 }, rationale: 'laya: block=0.53' }), MERGE),
    ).toEqual({
      ok: true,
      answer: {
        type: 'choice',
        value: 'block',
        probabilities: { rerun: 0.48, block: 0.53 },
        confidence: 0.53,
        calibrated: false,
      },
      rationale: 'laya: block=0.53',
    });
  });

  it('lists probabilities best first for a rationale, eliding a long tail', () => {
    expect(probabilitiesBestFirst({ rerun: 0.48, block: 0.52 })).toBe('block=0.52, rerun=0.48');
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`o${i}`, (i + 1) / 36]));
    expect(probabilitiesBestFirst(many)).toBe('o7=0.2222, o6=0.1944, o5=0.1667, o4=0.1389, o3=0.1111, and 3 more');
  });

  it("keeps ties in the engine's order, as a stable sort of every entry does", () => {
    expect(probabilitiesBestFirst({ a: 0.25, b: 0.5, c: 0.25 })).toBe('b=0.5, a=0.25, c=0.25');
    // Against that sort on generated distributions: small option sets (ties are common) and long tails.
    const bySort = (probabilities: Record<string, number>) => {
      const ranked = Object.entries(probabilities).sort(([, a], [, b]) => b - a);
      const listed = ranked.slice(0, 5).map(([option, p]) => `${option}=${Number(p.toFixed(4))}`);
      return ranked.length > 5 ? `${listed.join(', ')}, and ${ranked.length - 5} more` : listed.join(', ');
    };
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const reached = { ties: 0, tails: 0 };
    const cases = 500;
    for (let n = 0; n < cases; n++) {
      const size = 1 + Math.floor(next() * 9);
      const probabilities = Object.fromEntries(
        Array.from({ length: size }, (_, i) => [`o${i}`, Math.floor(next() * 4) / 4]),
      );
      const values = Object.values(probabilities);
      if (new Set(values).size < values.length) reached.ties++;
      if (size > 5) reached.tails++;
      expect(probabilitiesBestFirst(probabilities)).toBe(bySort(probabilities));
    }
    // What the generator reached (it must keep reaching both): about 75% with ties, 44% with a tail.
    expect(reached.ties / cases).toBeGreaterThan(0.5);
    expect(reached.tails / cases).toBeGreaterThan(0.3);
  });
});
