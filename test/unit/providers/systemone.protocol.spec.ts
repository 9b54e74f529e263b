import { MalformedResponseError } from '../../../src/decisions/decision-error';
import type { ChoiceAsk } from '../../../src/providers/choice/choice-engine';
import {
  probabilitiesBestFirst,
  readSystemOneReply,
  systemOneRequest,
} from '../../../src/providers/system-one/systemone-protocol';

const MERGE: ChoiceAsk = { id: 'decision', text: 'Rerun or block?', options: ['rerun', 'block'], yesNo: false };
const DESTRUCTIVE: ChoiceAsk = { id: 'destructive', text: 'Is rm -rf / destructive?', options: ['yes', 'no'], yesNo: true };

const choice = (fields: Record<string, unknown> = {}) => ({ type: 'choice', choice: 'block', probabilities: { rerun: 0.48, block: 0.52 }, ...fields });

describe('the System One request', () => {
  it('asks one choice question per batch question, keyed by id, with labels or a self-described map', () => {
    expect(systemOneRequest({ cwd: '/repo' }, [MERGE, DESTRUCTIVE], { model: 'm', criteria: 'labels' })).toEqual({
      model: 'm',
      state: { cwd: '/repo' },
      questions: {
        decision: { type: 'choice', instructions: 'Rerun or block?', criteria: ['rerun', 'block'] },
        destructive: { type: 'choice', instructions: 'Is rm -rf / destructive?', criteria: ['yes', 'no'] },
      },
    });
    const mapped = systemOneRequest(undefined, [MERGE], { criteria: 'self-described' });
    expect(mapped).toEqual({
      state: {},
      questions: { decision: { type: 'choice', instructions: 'Rerun or block?', criteria: { rerun: 'rerun', block: 'block' } } },
    });
    expect(Object.keys(mapped)).not.toContain('model');
  });
});

describe('reading a System One reply', () => {
  it('returns each answer with its probabilities in option order, tolerating rounding', () => {
    const reply = readSystemOneReply(
      {
        model: 'jev-1.14.0',
        answers: {
          decision: choice({ probabilities: { block: 0.5, rerun: 0.49 } }),
          destructive: { type: 'choice', choice: 'yes', probabilities: { yes: 0.9, no: 0.11 } },
        },
      },
      [MERGE, DESTRUCTIVE],
      'engine',
    );
    expect(reply.model).toBe('jev-1.14.0');
    expect(reply.answers.get('decision')).toMatchObject({ choice: 'block', probabilities: { rerun: 0.49, block: 0.5 } });
    expect(Object.keys(reply.answers.get('decision')!.probabilities)).toEqual(['rerun', 'block']);
    expect(reply.answers.get('destructive')).toMatchObject({ choice: 'yes', probabilities: { yes: 0.9, no: 0.11 } });
  });

  it.each([
    ['a non-object body', 'yes', 'engine answered a string instead of a System One reply object'],
    ['no answers', { model: 'x' }, 'without an "answers" object (got nothing)'],
    ['answers as a list', { answers: [choice()] }, 'without an "answers" object (got an array)'],
    ['a missing answer', { answers: { other: choice() } }, 'question "decision": missing from the reply'],
    ['an answer that is not an object', { answers: { decision: 'block' } }, 'question "decision": not an object (got a string)'],
    ['a noul answer', { answers: { decision: { type: 'noul', noul: 0.9 } } }, 'type "noul" instead of "choice"'],
    ['a choice that is not an option', { answers: { decision: choice({ choice: 'merge' }) } }, 'the choice "merge" is not one of the options sent'],
    ['a numeric choice', { answers: { decision: choice({ choice: 1 }) } }, '"choice" is a number, not an option'],
    ['no probabilities', { answers: { decision: choice({ probabilities: undefined }) } }, '"probabilities" is nothing, not an object'],
    ['probabilities over another option', { answers: { decision: choice({ probabilities: { rerun: 0.4, block: 0.5, merge: 0.1 } }) } }, '"probabilities" name "merge"'],
    ['probabilities lacking an option', { answers: { decision: choice({ probabilities: { block: 1 } }) } }, '"probabilities" lack the option "rerun"'],
    ['a probability outside [0, 1]', { answers: { decision: choice({ probabilities: { rerun: -0.2, block: 1.2 } }) } }, 'the probability of "rerun" is -0.2'],
    ['a probability that is text', { answers: { decision: choice({ probabilities: { rerun: '0.5', block: 0.5 } }) } }, 'the probability of "rerun" is "0.5"'],
    ['probabilities summing to 0.9', { answers: { decision: choice({ probabilities: { rerun: 0.4, block: 0.5 } }) } }, '"probabilities" sum to 0.9, not about 1'],
    ['probabilities summing to 1.05', { answers: { decision: choice({ probabilities: { rerun: 0.5, block: 0.55 } }) } }, 'sum to 1.05'],
  ])('refuses %s, naming the question and the problem', (_name, body, message) => {
    const read = () => readSystemOneReply(body, [MERGE], 'engine');
    expect(read).toThrow(MalformedResponseError);
    expect(read).toThrow(message);
  });

  it('lists probabilities best first for a rationale, eliding a long tail', () => {
    expect(probabilitiesBestFirst({ rerun: 0.48, block: 0.52 })).toBe('block=0.52, rerun=0.48');
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`o${i}`, (i + 1) / 36]));
    expect(probabilitiesBestFirst(many)).toBe('o7=0.2222, o6=0.1944, o5=0.1667, o4=0.1389, o3=0.1111, and 3 more');
  });
});
