import type { QuestionOutcome } from '../decisions/questions/decision.types';
import type { ServedQuestion } from './served-request';

/** One answer of the Decisions API (wire-contracts §10.2): exactly the keys of its type. */
export type OpenAiAnswer = Record<string, unknown>;

/**
 * A question's outcome in the API's words. A choice's probabilities follow its choices, each under its value
 * as sent (`true` stays a boolean); a score's follow its levels, valued by index. A question no engine answered,
 * or one withheld below the threshold, is a refusal: an answer, never an error of the request.
 */
export function openAiAnswer(asked: ServedQuestion, outcome: QuestionOutcome, withheld: boolean): OpenAiAnswer {
  const name = asked.name;
  if (outcome.status !== 'ok' || withheld) return { type: 'refusal', name };
  const answer = outcome.answer;
  switch (answer.type) {
    case 'noul':
      return { type: 'predicate', name, probability: answer.probabilityTrue };
    case 'choice': {
      const values = asked.values ?? Object.keys(answer.probabilities);
      const chosen = values.find((value) => String(value) === answer.value) ?? answer.value;
      return {
        type: 'choice',
        name,
        choice: chosen,
        confidence: answer.confidence,
        probabilities: values.map((value) => ({ value, probability: answer.probabilities[String(value)] ?? 0 })),
      };
    }
    case 'score':
      return {
        type: 'score',
        name,
        score: answer.value,
        confidence: answer.confidence,
        probabilities: answer.distribution.map((probability, index) => ({
          value: index,
          label: asked.labels?.[index] ?? String(index),
          probability,
        })),
      };
    default:
      // The API has no box question, so no box answer can come back to one; refuse rather than invent a shape.
      return { type: 'refusal', name };
  }
}

/** The API's usage object: what the engines reported, zeros for what nothing tells. */
export function openAiUsage(usage: { inputTokens: number; outputTokens: number }) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
