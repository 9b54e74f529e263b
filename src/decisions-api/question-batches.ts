import type { QuestionCapabilities } from '../decisions/questions/question-capabilities';
import type { Question } from '../decisions/questions/question.types';

/** How many questions, and choice candidates over them, one request to any engine of a chain may hold. */
export interface BatchLimits {
  maxQuestions: number;
  maxTotalOptions: number;
}

/**
 * The limits every engine of the chain takes (the tightest of each), so that whichever engine answers a batch,
 * it is not refused for its size. An engine that publishes no limit sets none.
 */
export function chainLimits(engines: readonly (QuestionCapabilities | undefined)[]): BatchLimits {
  const tightest = (limit: (capabilities: QuestionCapabilities) => number | undefined) =>
    Math.min(Infinity, ...engines.map((capabilities) => (capabilities && limit(capabilities)) ?? Infinity));
  return {
    maxQuestions: Math.max(
      1,
      tightest((capabilities) => capabilities.max_questions),
    ),
    maxTotalOptions: tightest((capabilities) => capabilities.max_total_options),
  };
}

/**
 * The question ids in batches, in order, each within the limits: a request of 400 questions to an engine that
 * takes 64 goes as 7 requests, and the answers are joined back in question order. A question over the options
 * limit alone still gets a batch of its own (its engine refuses it, and only it).
 */
export function inBatches(questions: readonly [string, Question][], limits: BatchLimits): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let options = 0;
  for (const [id, question] of questions) {
    const count = question.type === 'choice' ? Object.keys(question.criteria).length : 0;
    if (current.length > 0 && (current.length >= limits.maxQuestions || options + count > limits.maxTotalOptions)) {
      batches.push(current);
      current = [];
      options = 0;
    }
    current.push(id);
    options += count;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
