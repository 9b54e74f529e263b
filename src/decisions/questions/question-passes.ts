import { keyedMap } from '../../common/own-keys';
import type { QuestionCapabilities } from './question-capabilities';
import type { Question } from './question.types';

/** Candidates a question adds to a request's total (only choice questions count toward `max_total_options`). */
function candidates(question: Question): number {
  return question.type === 'choice' ? Object.keys(question.criteria).length : 0;
}

/**
 * A call's questions in the requests an engine takes (`max_questions` each, and `max_total_options`
 * candidates over a request's choice questions), in the call's order, each request as full as its limits let
 * it be. One request when the engine states neither limit or the call fits. A question holding more
 * candidates than a request may goes in a request of its own, which the engine's limits then refuse.
 */
export function questionPasses(
  questions: Record<string, Question>,
  { max_questions, max_total_options }: Pick<QuestionCapabilities, 'max_questions' | 'max_total_options'>,
): Record<string, Question>[] {
  const passes: Record<string, Question>[] = [];
  let current: [string, Question][] = [];
  let total = 0;
  for (const [id, question] of Object.entries(questions)) {
    const count = candidates(question);
    const full =
      (max_questions !== undefined && current.length >= max_questions) ||
      (max_total_options !== undefined && total + count > max_total_options);
    if (full && current.length > 0) {
      passes.push(keyed(current));
      current = [];
      total = 0;
    }
    current.push([id, question]);
    total += count;
  }
  if (current.length > 0) passes.push(keyed(current));
  return passes;
}

/** Entries as a record (no prototype: an id such as `__proto__` is a key like any other). */
function keyed(entries: [string, Question][]): Record<string, Question> {
  const record = keyedMap<Question>();
  for (const [id, question] of entries) record[id] = question;
  return record;
}
