import { CANDIDATES_MAX, LEVELS_MAX } from '../common/limits';
import { idProblem } from '../decisions/dto/json-value.decorators';
import type { Described, Question } from '../decisions/questions/question.types';
import { join, listAt, objectAt, oneOfAt, textAt } from './field-checks';
import type { RequestImages } from './openai-input';
import type { ServedQuestion } from './served-request';
import { WireInputError } from './wire-reply';

/** The API's most questions in one request (an older revision said 200). */
export const MAX_QUESTIONS = 400;
/** The API's most choices in one question. */
const MAX_CHOICES = Math.min(255, CANDIDATES_MAX);
const MAX_TEXT = 100_000;

/** The API's questions as the pipeline's, in order, keyed `q0`, `q1`, ... (a name may repeat or be absent). */
export function readQuestions(raw: unknown, images: RequestImages): ServedQuestion[] {
  return listAt(raw, 'questions', 1, MAX_QUESTIONS).map((item, index) =>
    readQuestion(item, `questions[${index}]`, index, images),
  );
}

function readQuestion(item: unknown, param: string, index: number, images: RequestImages): ServedQuestion {
  const type = oneOfAt(
    typeof item === 'object' && item !== null ? (item as { type?: unknown }).type : undefined,
    join(param, 'type'),
    ['predicate', 'choice', 'score'],
  );
  const extra = { predicate: [], choice: ['choices'], score: ['levels'] }[type];
  const fields = objectAt(item, param, ['type', 'instructions', 'name', ...extra]);
  const name = fields.name === undefined ? null : textAt(fields.name, join(param, 'name'), { max: 256 });
  const instructions = readInstructions(fields.instructions, join(param, 'instructions'), images);
  const id = `q${index}`;
  if (type === 'predicate') return { id, name, question: { type: 'noul', instructions } };
  if (type === 'score') {
    const levels = listAt(fields.levels, join(param, 'levels'), 2, LEVELS_MAX).map((level, at) => {
      const read = objectAt(level, join(join(param, 'levels'), at), ['label', 'description']);
      const label = textAt(read.label, join(join(join(param, 'levels'), at), 'label'), { max: MAX_TEXT });
      const description = optionalText(read.description, join(join(join(param, 'levels'), at), 'description'));
      return { label, criterion: description === undefined ? label : `${label}: ${description}` };
    });
    const question: Question = { type: 'score', instructions, criteria: levels.map((level) => level.criterion) };
    return { id, name, question, labels: levels.map((level) => level.label) };
  }
  const { values, criteria } = readChoices(fields.choices, join(param, 'choices'));
  return { id, name, question: { type: 'choice', instructions, criteria }, values };
}

/**
 * A choice's values, typed as sent, and the criteria the pipeline asks (keyed by each value's text). `true`
 * and `"true"` are distinct values to the API but one key to an engine, so a choice holding both is refused.
 */
function readChoices(
  raw: unknown,
  param: string,
): { values: (string | boolean)[]; criteria: Record<string, string | null> } {
  const choices = listAt(raw, param, 2, MAX_CHOICES);
  const values: (string | boolean)[] = [];
  const criteria: Record<string, string | null> = {};
  for (const [at, choice] of choices.entries()) {
    const fields = objectAt(choice, join(param, at), ['value', 'description']);
    const valueParam = join(join(param, at), 'value');
    const value =
      typeof fields.value === 'boolean' ? fields.value : textAt(fields.value, valueParam, { max: MAX_TEXT });
    const key = String(value);
    const wrongKey = idProblem(key, 'key');
    if (wrongKey) throw new WireInputError(valueParam, wrongKey.replace('has an empty key', 'must not be empty'));
    if (values.includes(value)) throw new WireInputError(valueParam, `repeats the value ${JSON.stringify(value)}`);
    if (Object.hasOwn(criteria, key))
      throw new WireInputError(
        param,
        `holds both ${key} and "${key}": an engine reads choices as text and cannot tell them apart; keep one`,
      );
    values.push(value);
    Object.defineProperty(criteria, key, {
      value: optionalText(fields.description, join(join(param, at), 'description')) || null,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { values, criteria };
}

/** Instructions: text, or parts (text, JSON data, images) kept as a list an engine reads as JSON text. */
function readInstructions(raw: unknown, param: string, images: RequestImages): Described {
  if (typeof raw === 'string') return textAt(raw, param, { max: MAX_TEXT });
  const parts = listAt(raw, param, 1, 64).map((part, at) => {
    const partParam = join(param, at);
    const type = oneOfAt((part as { type?: unknown } | null)?.type, join(partParam, 'type'), [
      'input_text',
      'input_image',
      'input_json',
    ]);
    if (type === 'input_text')
      return textAt(objectAt(part, partParam, ['type', 'text']).text, join(partParam, 'text'), { max: MAX_TEXT });
    if (type === 'input_json') {
      const { data } = objectAt(part, partParam, ['type', 'data']);
      if (typeof data !== 'object' || data === null)
        throw new WireInputError(join(partParam, 'data'), 'must be a JSON object or an array of objects');
      return data;
    }
    const fields = objectAt(part, partParam, ['type', 'image_url', 'detail']);
    oneOfAt(fields.detail, join(partParam, 'detail'), ['low', 'high', 'auto', 'original'], true);
    return `[image ${images.add(fields.image_url, join(partParam, 'image_url'))}]`;
  });
  return parts.every((part) => typeof part === 'string') ? parts.join('\n\n') : parts;
}

function optionalText(raw: unknown, param: string): string | undefined {
  return raw === undefined || raw === null ? undefined : textAt(raw, param, { empty: true, max: MAX_TEXT });
}
