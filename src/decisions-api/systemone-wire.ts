import { checkDto } from '../common/dto-check';
import { isRecord } from '../common/is-record';
import { boxWithoutImage } from '../decisions/dto/json-value.decorators';
import type { QuestionOutcome } from '../decisions/questions/decision.types';
import type { DecisionState, ImageAttachment, Question } from '../decisions/questions/question.types';
import { CHAIN_MODEL } from './model-catalog';
import type { ServedQuestion, ServedRequest } from './served-request';
import { SystemOneRequestDto } from './systemone-request.dto';
import { WireInputError } from './wire-reply';

/** A System One request body checked whole, in the pipeline's terms; the first problem thrown, naming its field. */
export function readSystemOneRequest(body: unknown): ServedRequest {
  if (!isRecord(body)) throw new WireInputError('(body)', 'must be a JSON object with state and questions');
  const [first] = checkDto(SystemOneRequestDto, body, '', 'a System One request');
  if (first) throw new WireInputError(first.field, first.problem);
  const request = body as {
    state: DecisionState;
    questions: Record<string, Question>;
    images?: ImageAttachment[];
    longContext?: boolean;
    model?: string;
  };
  const box = boxWithoutImage(Object.entries(request.questions), request.images);
  if (box !== undefined)
    throw new WireInputError(`questions.${box}`, 'is a box question, which needs at least one image in images');
  return {
    model: request.model ?? CHAIN_MODEL,
    state: request.state,
    questions: Object.entries(request.questions).map(([id, question]) => ({ id, name: id, question })),
    ...(request.images && request.images.length > 0 && { images: request.images }),
    ...(request.longContext && { longContext: true }),
  };
}

/**
 * A question's answer in System One's shape (wire-contracts §1.2), as a strict client checks it (§1.3): a
 * score's legend echoes its criteria by string index, its probabilities hold every index. Undefined for a
 * question that has no answer to give (failed, or withheld): it is left out of `answers`.
 */
export function systemOneAnswer(asked: ServedQuestion, outcome: QuestionOutcome, withheld: boolean): unknown {
  if (outcome.status !== 'ok' || withheld) return undefined;
  const answer = outcome.answer;
  switch (answer.type) {
    case 'noul':
      return { type: 'noul', noul: answer.probabilityTrue };
    case 'choice':
      return {
        type: 'choice',
        choice: answer.value,
        probabilities: answer.probabilities,
        confidence: answer.confidence,
      };
    case 'score': {
      const criteria = asked.question.type === 'score' ? asked.question.criteria : [];
      return {
        type: 'score',
        score: answer.value,
        legend: Object.fromEntries(criteria.map((criterion, index) => [String(index), criterion])),
        probabilities: Object.fromEntries(answer.distribution.map((p, index) => [String(index), p])),
        confidence: answer.confidence,
      };
    }
    case 'box':
      return {
        type: 'box',
        box: answer.box,
        ...(answer.confidence !== undefined && { confidence: answer.confidence }),
      };
  }
}
