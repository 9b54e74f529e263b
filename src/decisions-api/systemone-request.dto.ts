import { ArrayMaxSize, IsArray, IsBoolean, MaxLength } from 'class-validator';
import { NestedDto } from '../common/dto-check';
import { Optional } from '../common/optional.decorator';
import { idProblem, IsState, overCap, valueCheck } from '../decisions/dto/json-value.decorators';
import { ImageDto, MAX_IMAGES } from '../decisions/dto/request-parts.dto';
import { questionDtoFor } from '../decisions/dto/question.dto';
import { QUESTION_TYPES } from '../decisions/questions/question.types';
import { MAX_QUESTIONS } from './openai-questions';

/** The questions of a System One request: at least one, keyed by a usable id, each of a known type. */
const IsQuestionMap = () =>
  valueCheck('isSystemOneQuestions', (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0)
      return 'must be an object with at least one question, keyed by question id';
    const ids = Object.keys(value);
    if (ids.length > MAX_QUESTIONS) return overCap(MAX_QUESTIONS, 'questions', ids.length);
    for (const [id, question] of Object.entries(value)) {
      const wrongId = idProblem(id, 'id');
      if (wrongId) return wrongId;
      if (typeof question !== 'object' || question === null || Array.isArray(question))
        return `.${id} must be an object with type and instructions`;
      if (!questionDtoFor(question))
        return `.${id}.type must be one of ${QUESTION_TYPES.join(', ')} (got ${JSON.stringify((question as { type?: unknown }).type) ?? 'nothing'})`;
    }
    return undefined;
  });

/**
 * A System One request as served at `/v1/systemone` (wire-contracts §1.1, with the images and `longContext` of
 * the dsh-level extension): the question DTOs are the ones every typed surface checks with; `model` is a model
 * name of the served Decisions API (absent: `system1`).
 */
export class SystemOneRequestDto {
  @IsState()
  state!: unknown;

  @IsQuestionMap()
  @NestedDto(questionDtoFor, 'map', (question) => `a ${(question as { type: string }).type} question`)
  questions!: Record<string, unknown>;

  @Optional()
  @IsArray({ message: 'must be a list of {mediaType, data}' })
  @ArrayMaxSize(MAX_IMAGES, { message: `may hold at most ${MAX_IMAGES} images` })
  @NestedDto(() => ImageDto, 'list', () => 'an image')
  images?: unknown[];

  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  longContext?: boolean;

  @Optional()
  @MaxLength(512, { message: 'must be a model name of at most 512 characters' })
  @valueCheckString()
  model?: string;
}

function valueCheckString() {
  return valueCheck('isModelName', (value) =>
    typeof value === 'string' && value.trim() !== '' ? undefined : 'must be a non-empty model name',
  );
}
