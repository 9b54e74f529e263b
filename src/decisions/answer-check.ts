import { isRecord } from '../common/is-record';
import { shown } from '../config/setting-types';
import { DecisionQuestion } from './provider.interface';
import { isProbability, kindOf } from './distribution';

export type CheckedAnswer =
  | { kind: 'decision'; decision: string; confidence: number; probabilities: Record<string, number> | null; rationale: string | null }
  | { kind: 'abstain'; rationale: string | null }
  | { kind: 'malformed'; detail: string };

/**
 * The gateway's check of one provider answer: a non-object, a confidence outside [0, 1], a decision not
 * among the options or probabilities that are not per-option numbers in [0, 1] are malformed.
 */
export function checkAnswer(answer: unknown, question: DecisionQuestion): CheckedAnswer {
  if (!isRecord(answer)) return malformed(`the answer is not an object (got ${kindOf(answer)})`);
  const rationale = typeof answer.rationale === 'string' ? answer.rationale : null;
  if (answer.abstain === true) return { kind: 'abstain', rationale };

  const { decision, confidence, probabilities } = answer;
  if (typeof decision !== 'string') return malformed(`the answer has no decision (got ${kindOf(decision)})`);
  if (!question.options.includes(decision)) return malformed(`the decision ${shown(decision)} is not one of the options`);
  if (!isProbability(confidence)) return malformed(`the confidence ${shown(confidence)} is not a number in [0, 1]`);
  if (probabilities === undefined || probabilities === null) {
    return { kind: 'decision', decision, confidence, probabilities: null, rationale };
  }
  if (!isRecord(probabilities)) return malformed('probabilities is not an object');
  for (const [option, value] of Object.entries(probabilities)) {
    if (!question.options.includes(option)) return malformed(`probabilities name ${shown(option)}, which is not an option`);
    if (!isProbability(value)) return malformed(`the probability of ${shown(option)} is not a number in [0, 1]`);
  }
  return { kind: 'decision', decision, confidence, probabilities: probabilities as Record<string, number>, rationale };
}

function malformed(detail: string): CheckedAnswer {
  return { kind: 'malformed', detail };
}
