import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsPositive,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { NestedDto } from '../../common/dto-check';
import { MAX_TIMER_MS, QUESTIONS_MAX } from '../../common/limits';
import { Optional } from '../../common/optional.decorator';
import { idProblem, IsState, overCap, valueCheck } from '../../decisions/dto/json-value.decorators';
import { ImageDto, MAX_IMAGES, ModelRefDto } from '../../decisions/dto/request-parts.dto';
import { questionDtoFor } from '../../decisions/dto/question.dto';
import { QUESTION_TYPES } from '../../decisions/questions/question.types';

/** The questions of a call: at least one, keyed by a usable id, each of a known type. */
const IsQuestionMap = () => valueCheck('isQuestionMap', questionMapProblem);

function questionMapProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
    return 'must be an object with at least one question, keyed by question id';
  }
  if (Object.keys(value).length > QUESTIONS_MAX) return overCap(QUESTIONS_MAX, 'questions', Object.keys(value).length);
  for (const [id, question] of Object.entries(value)) {
    const wrongId = idProblem(id, 'id');
    if (wrongId) return wrongId;
    if (typeof question !== 'object' || question === null || Array.isArray(question))
      return `.${id} must be an object with type and instructions`;
    if (!questionDtoFor(question))
      return (
        `.${id}.type must be one of ${QUESTION_TYPES.join(', ')} (got ` +
        `${JSON.stringify((question as { type?: unknown }).type) ?? 'nothing'})`
      );
  }
  return undefined;
}

/**
 * The library's `decide` call. This class (with the question DTOs) is the schema of the call and its one
 * check: `assertLibraryRequest` runs it, and `schema/library-request.json` is generated from it.
 */
@JSONSchema({ title: 'createSystem1().decide request', description: 'Named typed questions about one state.' })
export class LibraryDecideRequestDto {
  @IsState()
  @JSONSchema(() => ({
    anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }],
    description: 'The state the questions are about.',
  }))
  state!: unknown;

  @IsQuestionMap()
  @NestedDto(questionDtoFor, 'map', (question) => `a ${(question as { type: string }).type} question`)
  @JSONSchema(() => ({
    type: 'object',
    minProperties: 1,
    maxProperties: QUESTIONS_MAX,
    additionalProperties: {
      oneOf: ['Choice', 'Noul', 'Score', 'Box'].map((type) => ({ $ref: `#/$defs/${type}QuestionDto` })),
    },
    description: 'Questions keyed by id: the keys of the answers.',
  }))
  questions!: Record<string, unknown>;

  @Optional()
  @IsArray({ message: 'must be a list of {mediaType, data}' })
  @ArrayMaxSize(MAX_IMAGES, { message: `may hold at most ${MAX_IMAGES} images` })
  @NestedDto(() => ImageDto, 'list', () => 'an image')
  @JSONSchema(() => ({ type: 'array', maxItems: MAX_IMAGES, items: { $ref: '#/$defs/ImageDto' } }))
  images?: unknown[];

  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  longContext?: boolean;

  @Optional()
  @NestedDto(() => ModelRefDto, 'one', () => 'a model reference {provider, model?}')
  @JSONSchema(() => ({ $ref: '#/$defs/ModelRefDto' }))
  model?: unknown;

  // Not JSON: an AbortSignal, checked here and left out of the published schema.
  @Optional()
  @ValidateIf((_o: object, value: unknown) => !(value instanceof AbortSignal))
  @IsIn([], { message: 'must be an AbortSignal' })
  @JSONSchema(() => ({ description: 'An AbortSignal (not JSON): ends the chain, reported as cancelled.' }))
  signal?: AbortSignal;

  @Optional()
  @IsInt({ message: 'must be a positive whole number of milliseconds' })
  @IsPositive({ message: 'must be a positive whole number of milliseconds' })
  @Max(MAX_TIMER_MS, {
    message: `must be at most ${MAX_TIMER_MS} milliseconds (about 24.8 days, the longest a timer waits)`,
  })
  timeoutMs?: number;

  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a number from 0 to 1' })
  @Min(0, { message: 'must be a number from 0 to 1' })
  @Max(1, { message: 'must be a number from 0 to 1' })
  minConfidence?: number;
}
