import { join, objectAt, oneOfAt, textAt } from './field-checks';
import { RequestImages, renderInput } from './openai-input';
import { readQuestions } from './openai-questions';
import type { ServedRequest } from './served-request';
import { WireInputError } from './wire-reply';

const FIELDS = [
  'model',
  'input',
  'questions',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_options',
] as const;
/** The API's limit on `safety_identifier` and `prompt_cache_key` (Responses' own). */
const MAX_KEY_CHARS = 64;

/**
 * A Decisions API request body (wire-contracts §10.1) checked whole and turned into the pipeline's terms; the
 * first problem is thrown as a WireInputError naming its path (`questions[3].choices`).
 *
 * `safety_identifier`, `prompt_cache_key` and `prompt_cache_options` are checked and accepted, then dropped:
 * an end user's identifier may be personal, so it is neither logged, stored nor sent to any engine, and no
 * engine served here caches prompts (the decision cache keys on the questions themselves).
 */
export function readDecisionsRequest(body: unknown): ServedRequest {
  const fields = objectAt(body, '', FIELDS);
  for (const required of ['model', 'input', 'questions'] as const)
    if (fields[required] === undefined) throw new WireInputError(required, 'is required');
  const model = textAt(fields.model, 'model', { max: 512 });
  for (const key of ['safety_identifier', 'prompt_cache_key'] as const)
    if (fields[key] !== undefined && fields[key] !== null)
      textAt(fields[key], key, { empty: true, max: MAX_KEY_CHARS });
  if (fields.prompt_cache_options !== undefined && fields.prompt_cache_options !== null) {
    const options = objectAt(fields.prompt_cache_options, 'prompt_cache_options', ['mode', 'ttl']);
    oneOfAt(options.mode, join('prompt_cache_options', 'mode'), ['implicit', 'explicit'], true);
    oneOfAt(options.ttl, join('prompt_cache_options', 'ttl'), ['30m'], true);
  }
  const images = new RequestImages();
  const state = renderInput(fields.input, images);
  const questions = readQuestions(fields.questions, images);
  return { model, state, questions, ...(images.images.length > 0 && { images: images.images }) };
}
