import { oneLine } from '../common/clip';
import type { DecideResult } from '../decisions/questions/question-results';
import type { LeafShape, SchemaPlan, Shape } from './schema-to-questions';

/** One field as the fast engine answered it, whatever the threshold. */
export interface FieldAnswer {
  id: string;
  value: unknown;
  /** On the 0..1 scale every field shares: a choice's or score level's probability, |2p - 1| for a noul. */
  confidence: number;
}

/** The fast engine could not answer a field: the request falls back with `fast_model_error`. */
export class FastAnswerError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'FastAnswerError';
  }
}

/** Every leaf's value and confidence, read from the engine's answers; throws FastAnswerError on any gap. */
export function readFieldAnswers(plan: SchemaPlan, result: DecideResult): FieldAnswer[] {
  return plan.leaves.map((leaf) => fieldAnswer(leaf, result));
}

function fieldAnswer(leaf: LeafShape, result: DecideResult): FieldAnswer {
  const field = `field ${leaf.id}`;
  const outcome = Object.hasOwn(result.answers, leaf.id) ? result.answers[leaf.id] : undefined;
  if (!outcome) throw new FastAnswerError(`${field}: no answer`);
  if (outcome.status === 'error') {
    throw new FastAnswerError(`${field}: ${outcome.error.code} (${oneLine(outcome.error.message, 200)})`);
  }
  const answer = outcome.answer;
  if (answer.type !== leaf.kind)
    throw new FastAnswerError(`${field}: answered as ${answer.type}, asked as ${leaf.kind}`);
  const confidence = answer.confidence;
  if (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1))
    throw new FastAnswerError(`${field}: no confidence in [0, 1]`);
  if (answer.type === 'choice' && leaf.kind === 'choice') {
    const option = leaf.options.find(({ key }) => key === answer.value);
    if (!option) throw new FastAnswerError(`${field}: chose an option that was not offered`);
    return { id: leaf.id, value: option.value, confidence };
  }
  if (answer.type === 'noul') return { id: leaf.id, value: answer.value, confidence };
  if (answer.type === 'score' && leaf.kind === 'score') {
    // The most likely level, not the expected value: the schema wants one of its integers.
    if (!Number.isInteger(answer.level) || answer.level < 0 || answer.level >= leaf.levels)
      throw new FastAnswerError(`${field}: a level that was not offered`);
    return { id: leaf.id, value: leaf.lowest + answer.level, confidence };
  }
  throw new FastAnswerError(`${field}: answered as ${answer.type}`);
}

/** The fields below the threshold, in schema order (empty when the fast answer may be served). */
export function fieldsBelow(fields: FieldAnswer[], minConfidence: number): FieldAnswer[] {
  return fields.filter((field) => field.confidence < minConfidence);
}

/** The JSON object the schema asks for: nested objects rebuilt from the dotted paths, constants filled in. */
export function buildObject(shape: Shape, fields: FieldAnswer[]): unknown {
  const values = new Map(fields.map((field) => [field.id, field.value]));
  const build = (node: Shape): unknown => {
    if (node.kind === 'object') return Object.fromEntries(node.properties.map(([name, child]) => [name, build(child)]));
    if (node.kind === 'const') return node.value;
    return values.get(node.id);
  };
  return build(shape);
}
