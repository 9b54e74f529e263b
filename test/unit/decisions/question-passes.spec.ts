/**
 * A call over an engine's limits asked in passes (DecisionPolicy.inPasses, the decisions endpoints' policy):
 * Laya takes 64 questions a request, so 400 go in 7 requests, under one attempt, answers in the call's order.
 */
import type { TestingModule } from '@nestjs/testing';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import type { ChoiceQuestion, Question } from '../../../src/decisions/questions/question.types';
import { questionPasses } from '../../../src/decisions/questions/question-passes';
import { LayaFake } from '../../fakes/laya.fake';
import { SYSTEMONE_ROUTE } from '../../fakes/systemone-answer';
import { gatewayApp } from '../../helpers/gateway-app';

const choice = (candidates: number): ChoiceQuestion => ({
  type: 'choice',
  instructions: 'Which team?',
  criteria: Object.fromEntries(Array.from({ length: candidates }, (_, i) => [`team ${i}`, null])),
});
const questions = (count: number, candidates = 2): Record<string, Question> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`q${i}`, choice(candidates)]));

describe('questionPasses', () => {
  it('fills each pass up to max_questions, in order', () => {
    const passes = questionPasses(questions(130), { max_questions: 64 });
    expect(passes.map((pass) => Object.keys(pass).length)).toEqual([64, 64, 2]);
    expect(passes.flatMap((pass) => Object.keys(pass))).toEqual(Object.keys(questions(130)));
  });

  it('closes a pass before the candidates over all its questions pass max_total_options', () => {
    const passes = questionPasses(questions(5, 200), { max_questions: 64, max_total_options: 512 });
    expect(passes.map((pass) => Object.keys(pass))).toEqual([['q0', 'q1'], ['q2', 'q3'], ['q4']]);
  });

  it('is one pass for an engine that states no limit, and keeps an id such as __proto__ as a key', () => {
    const asked = JSON.parse(
      '{"__proto__": {"type": "noul", "instructions": "x"}, "b": {"type": "noul", "instructions": "y"}}',
    );
    const passes = questionPasses(asked as Record<string, Question>, {});
    expect(passes).toHaveLength(1);
    expect(Object.keys(passes[0])).toEqual(['__proto__', 'b']);
  });
});

describe('a call asked in passes through the pipeline', () => {
  let laya: LayaFake;
  let app: TestingModule;
  beforeEach(async () => {
    laya = new LayaFake();
    const url = (await laya.start()).origin;
    app = await gatewayApp({
      toml: `[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoint = "${url}"\n`,
    });
  });
  afterEach(async () => {
    await app.close();
    await laya.stop();
  });

  it('asks 400 questions of an engine that takes 64 in 7 requests, every answer in the call order', async () => {
    const asked = questions(400);
    const outcome = await app.get(DecisionService).decide({ questions: asked }, { inPasses: true });
    const requests = laya.requestsTo(SYSTEMONE_ROUTE);
    expect(requests.map((request) => Object.keys((request.body as { questions: object }).questions).length)).toEqual([
      64, 64, 64, 64, 64, 64, 16,
    ]);
    expect(Object.keys(outcome.answers)).toEqual(Object.keys(asked));
    expect(Object.values(outcome.answers).every((answer) => answer.status === 'ok')).toBe(true);
    expect(outcome.executed?.provider).toBe('laya');
    expect(outcome.attempts).toHaveLength(1);
  });

  it('refuses the same call before sending without passes, and the chain moves on', async () => {
    const outcome = await app.get(DecisionService).decide({ questions: questions(400) }, {});
    expect(laya.requestsTo(SYSTEMONE_ROUTE)).toHaveLength(0);
    expect(outcome.attempts[0]).toMatchObject({
      provider: 'laya',
      outcome: 'failed',
      error: { code: 'limit_exceeded' },
    });
    expect(outcome.executed?.provider).toBe('mock');
  });

  it('fails the whole attempt when one pass fails, and the next engine answers every question', async () => {
    let seen = 0;
    laya.chooseFault = () => (++seen === 3 ? 'status-500' : 'none');
    const outcome = await app.get(DecisionService).decide({ questions: questions(200) }, { inPasses: true });
    expect(outcome.attempts[0]).toMatchObject({ provider: 'laya', outcome: 'failed' });
    expect(outcome.executed?.provider).toBe('mock');
    expect(Object.values(outcome.answers).every((answer) => answer.status === 'ok')).toBe(true);
  });
});

describe('joinedReplies: the passes of one call as one reply', () => {
  const { joinedReplies } =
    require('../../../src/decisions/pipeline/joined-replies') as typeof import('../../../src/decisions/pipeline/joined-replies');

  it('holds every answer and error, the first model, the tokens added up and the stray answers counted', () => {
    const joined = joinedReplies([
      {
        reply: { answers: { a: 1 }, model: 'm1', usage: { inputTokens: 10, outputTokens: 1 } },
        stray: { count: 2, first: ['x', 'y'] },
      },
      {
        reply: {
          answers: { b: 2 },
          errors: { c: { code: 'abstained', message: 'no' } },
          usage: { inputTokens: 5 },
          approximate: true,
        },
        stray: { count: 3, first: ['z', 'w', 'v'] },
      },
    ] as Parameters<typeof joinedReplies>[0]);
    expect(joined.reply).toEqual({
      answers: { a: 1, b: 2 },
      errors: { c: { code: 'abstained', message: 'no' } },
      model: 'm1',
      usage: { inputTokens: 15, outputTokens: 1 },
      approximate: true,
    });
    expect(joined.stray).toEqual({ count: 5, first: ['x', 'y', 'z'] });
  });
});
