import { evaluateByPicks } from '../../../src/providers/choice/choice-provider';
import { letterAnswer, letterMessages, type LetterReading } from '../../../src/providers/letters/letter-choice';
import { MalformedResponseError } from '../../../src/decisions/errors/decision-error';
import type { ChoiceAsk } from '../../../src/providers/choice/choice-provider';
import { expectedShare } from './letter-chat.shared';

const question = (options: string[], id = 'q'): ChoiceAsk => ({ id, text: 'Which?', options, yesNo: false });
const READING: LetterReading = { label: 'test m1', noLogprobsHint: 'upgrade the server' };
const generated = (token: string, top: { token: string; logprob: number }[]) => [
  { token, logprob: top.find((t) => t.token === token)?.logprob ?? -1, top_logprobs: top },
];

describe('the letter technique', () => {
  it('letters the options on their own lines, with the state as JSON only when there is one', () => {
    const [system, user] = letterMessages(question(['keep', 'drop\nit']), undefined);
    expect(system).toEqual({ role: 'system', content: 'Answer with the letter of exactly one option.' });
    expect(user).toEqual({ role: 'user', content: 'Which?\nA) keep\nB) drop it\nAnswer:' });
    expect(letterMessages(question(['a', 'b']), { n: 1 })[1].content).toBe(
      'Which?\nContext: {"n":1}\nA) a\nB) b\nAnswer:',
    );
  });

  it('adds the leading-space variant to its letter and ignores lower case and longer tokens', () => {
    const top = [
      { token: 'B', logprob: -0.2 },
      { token: ' B', logprob: -3 },
      { token: 'A', logprob: -1.9 },
      { token: 'b', logprob: -1 },
      { token: 'A)', logprob: -1 },
      { token: 'Block', logprob: -0.5 },
    ];
    const answer = letterAnswer(question(['rerun', 'block']), generated('B', top), READING);
    expect(answer).toEqual({
      decision: 'block',
      confidence: expectedShare(top, 'B'),
      probabilities: { rerun: expectedShare(top, 'A'), block: expectedShare(top, 'B') },
      rationale: `test m1: B) block=${expectedShare(top, 'B').toFixed(2)}, A) rerun=${expectedShare(top, 'A').toFixed(2)}`,
    });
    expect(expectedShare(top, 'A') + expectedShare(top, 'B')).toBeCloseTo(1, 12);
  });

  it("gives 0 to options without a letter token and to vLLM's -9999 stand-in for -inf", () => {
    const top = [
      { token: 'A', logprob: -0.1 },
      { token: 'B', logprob: -9999.0 },
    ];
    const answer = letterAnswer(question(['x', 'y', 'z']), generated('A', top), READING);
    expect(answer).toMatchObject({
      decision: 'x',
      confidence: 1,
      probabilities: { x: 1, y: 0, z: 0 },
      rationale: 'test m1: A) x=1.00',
    });
  });

  it('counts the generated token even when top_logprobs leaves it out, and ties go to it', () => {
    const answer = letterAnswer(
      question(['x', 'y']),
      [{ token: 'B', logprob: -0.693, top_logprobs: [{ token: 'A', logprob: -0.693 }] }],
      READING,
    );
    expect(answer).toMatchObject({ decision: 'y', confidence: 0.5 });
  });

  it.each([
    ['no logprobs at all', undefined, 'the server returned no logprobs: upgrade the server'],
    ['an empty logprobs list', [], 'the server returned no logprobs: upgrade the server'],
    [
      'no top_logprobs',
      [{ token: 'A', logprob: -0.1, top_logprobs: [] }],
      'no top_logprobs for the answer: upgrade the server',
    ],
    [
      'a non-letter answer',
      generated('Sure', [{ token: 'Sure', logprob: -0.1 }]),
      'the model answered "Sure", not an option letter',
    ],
    [
      'a letter past the options',
      generated('C', [{ token: 'C', logprob: -0.1 }]),
      'the model answered "C", not an option letter',
    ],
    [
      'a logprob that is not a number',
      [{ token: 'A', logprob: '-0.1', top_logprobs: [] }],
      'has no token and numeric logprob',
    ],
  ])('calls %s a malformed reply', (_name, reply, words) => {
    const read = () => letterAnswer(question(['x', 'y']), reply, READING);
    expect(read).toThrow(MalformedResponseError);
    expect(read).toThrow(words);
  });

  it('asks every question at once through the choice base and keys the answers by id', async () => {
    let inFlight = 0;
    let most = 0;
    const reply = await evaluateByPicks(
      {
        questions: {
          q1: { type: 'choice', instructions: 'q1', criteria: { a: null, b: null } },
          q2: { type: 'choice', instructions: 'q2', criteria: { c: null, d: null } },
        },
      },
      { signal: new AbortController().signal, requestId: 't' },
      async (q) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return { decision: q.options[0], confidence: 1 };
      },
    );
    expect(most).toBe(2);
    expect(reply.answers).toEqual({
      q1: { type: 'choice', choice: 'a', probabilities: { a: 1, b: 0 } },
      q2: { type: 'choice', choice: 'c', probabilities: { c: 1, d: 0 } },
    });
    expect(reply.approximate).toBe(true);
  });
});
