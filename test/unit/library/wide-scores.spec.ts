/**
 * A score with more levels than the engine scores (an 11-level 0-10 rating on a 10-level engine) is asked
 * as a choice among its levels and answered as a score; one the engine's choice cannot carry either is
 * refused as over its limit.
 */
import type { System1Provider } from '../../../src/decisions/registry/provider.interface';
import { type EvaluateRequest } from '../../../src/decisions/registry/provider.interface';
import { type ScoreQuestion } from '../../../src/decisions/questions/question.types';
import { VonFake } from '../../fakes/von.fake';
import { LibrarySandbox } from './library-setup';

const RATING: ScoreQuestion = {
  type: 'score',
  instructions: 'How likely is the customer to recommend us?',
  criteria: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10'],
};

/** A team's engine that scores at most 3 levels and picks among at most 5 candidates, with a set answer. */
class NarrowEngine implements System1Provider {
  calls: EvaluateRequest[] = [];
  answer: unknown = {
    type: 'choice',
    choice: '3',
    probabilities: { '0': 0.1, '1': 0.1, '2': 0.1, '3': 0.6, '4': 0.1 },
  };

  capabilities() {
    return {
      batch: true,
      probabilities: true,
      questions: { types: ['choice' as const, 'score' as const], max_levels: 3, max_options: 5 },
    };
  }

  async evaluate(request: EvaluateRequest) {
    this.calls.push(request);
    return { answers: Object.fromEntries(Object.keys(request.questions).map((id) => [id, this.answer])) };
  }
}

const levels = (count: number): ScoreQuestion => ({
  type: 'score',
  instructions: 'Severity?',
  criteria: RATING.criteria.slice(0, count),
});

describe('scores wider than the engine scores', () => {
  let sandbox: LibrarySandbox;
  beforeEach(() => (sandbox = new LibrarySandbox()));
  afterEach(() => sandbox.close());

  it('asks an 11-level rating of a 10-level System One engine as a choice among the levels, in the same request', async () => {
    const von = new VonFake();
    await von.start();
    try {
      const system1 = await sandbox.open(
        `[gateway]\nprovider = "von"\n[providers.von]\nendpoint = "${von.url.origin}"\n`,
      );
      const result = await system1.decide({
        state: 'Great support, fixed in minutes.',
        questions: { rating: RATING, severity: levels(3) },
      });

      const sent = von.requestsTo('/v1/systemone');
      expect(sent).toHaveLength(1);
      const questions = (sent[0].body as { questions: Record<string, { type: string; criteria: unknown }> }).questions;
      expect(questions.rating).toEqual({
        type: 'choice',
        instructions: 'How likely is the customer to recommend us? (the candidates are levels, from lowest to highest)',
        criteria: Object.fromEntries(RATING.criteria.map((level, index) => [String(index), level])),
      });
      expect(questions.severity).toMatchObject({ type: 'score', criteria: ['0', '1', '2'] });

      const rating = result.answers.rating;
      expect(rating.status).toBe('ok');
      if (rating.status !== 'ok' || rating.answer.type !== 'score') throw new Error('no score');
      expect(rating.answer.distribution).toHaveLength(11);
      expect(rating.answer.distribution.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 3);
      expect(rating.answer.level).toBe(rating.answer.distribution.indexOf(Math.max(...rating.answer.distribution)));
      expect(rating.answer.value).toBeCloseTo(
        rating.answer.distribution.reduce((sum, p, index) => sum + index * p, 0),
        6,
      );
      expect(result.answers.severity).toMatchObject({ status: 'ok', answer: { type: 'score' } });
      expect(result.meta.warnings).toEqual([
        'von scores at most 10 levels, so "rating" (11 levels) was asked as a choice among them',
      ]);
    } finally {
      await von.stop();
    }
  });

  it('reads the level choice back as a score with the distribution and the expected level', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const engine = new NarrowEngine();
    system1.registerProvider('narrow', engine);
    const result = await system1.decide({
      state: 'x',
      questions: { severity: levels(5) },
      model: { provider: 'narrow' },
    });
    expect(engine.calls[0].questions.severity).toMatchObject({
      type: 'choice',
      criteria: { 0: '0', 1: '1', 2: '2', 3: '3', 4: '4' },
    });
    expect(result.answers.severity).toEqual({
      status: 'ok',
      answer: {
        type: 'score',
        value: expect.closeTo(2.5, 6),
        level: 3,
        distribution: [0.1, 0.1, 0.1, 0.6, 0.1],
        confidence: 0.6,
        calibrated: false,
      },
      belowThreshold: false,
    });
  });

  it('names what is wrong with a level choice answer as it would with a score', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const engine = new NarrowEngine();
    engine.answer = { type: 'choice', choice: '3', probabilities: { '0': 0.5, '3': 0.5 } };
    system1.registerProvider('narrow', engine);
    const result = await system1.decide({
      state: 'x',
      questions: { severity: levels(5) },
      model: { provider: 'narrow' },
    });
    expect(result.answers.severity).toMatchObject({
      status: 'error',
      error: { code: 'invalid_response', message: expect.stringContaining('narrow answer to "severity"') },
    });
  });

  it('refuses a score that neither the score nor the choice of the engine can carry, before asking', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const engine = new NarrowEngine();
    system1.registerProvider('narrow', engine);
    const result = await system1.decide({ state: 'x', questions: { rating: RATING }, model: { provider: 'narrow' } });
    expect(engine.calls).toHaveLength(0);
    expect(result.answers.rating).toEqual({
      status: 'error',
      error: { code: 'limit_exceeded', message: 'narrow takes at most 3 levels per score question; "rating" has 11' },
    });
  });
});
