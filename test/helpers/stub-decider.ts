import type { Answer } from '../../src/decisions/questions/question.types';
import type { DecideRequest, DecideResult, QuestionResult } from '../../src/library/library.types';
import type { FastDecider } from '../../src/openai-router/fast-decider';

export const choice = (value: string, confidence: number): Answer => ({
  type: 'choice',
  value,
  probabilities: { [value]: confidence },
  confidence,
  calibrated: false,
});
export const noul = (probabilityTrue: number): Answer => ({
  type: 'noul',
  value: probabilityTrue >= 0.5,
  probabilityTrue,
  confidence: Math.abs(2 * probabilityTrue - 1),
  calibrated: false,
});
export const score = (level: number, confidence: number, levels = 3): Answer => ({
  type: 'score',
  value: level,
  level,
  distribution: Array.from({ length: levels }, (_, i) => (i === level ? confidence : (1 - confidence) / (levels - 1))),
  confidence,
  calibrated: false,
});

/** A fast engine that answers each question id from a table (an Error answers that id with an error). */
export class StubDecider {
  readonly requests: DecideRequest[] = [];
  failWith?: Error;
  /** While set, the engine is still deciding: it answers once this settles (a test's slow fast engine). */
  gate?: Promise<void>;

  constructor(public table: Record<string, Answer | Error> = {}) {}

  readonly decide: FastDecider = async (request) => {
    this.requests.push(request);
    await this.gate;
    if (this.failWith) throw this.failWith;
    const answers: Record<string, QuestionResult> = {};
    for (const id of Object.keys(request.questions)) {
      const entry = this.table[id];
      if (entry instanceof Error)
        answers[id] = { status: 'error', error: { code: 'unsupported', message: entry.message } };
      else if (entry) answers[id] = { status: 'ok', answer: entry, belowThreshold: false };
    }
    const result: DecideResult = {
      answers,
      meta: {
        requestId: 'stub-1',
        requested: { provider: 'stub', model: 'd1' },
        executed: { provider: 'stub', model: 'd1' },
        durationMs: 3,
        usage: { inputTokens: 120, outputTokens: 0 },
      },
    };
    return result;
  };
}
