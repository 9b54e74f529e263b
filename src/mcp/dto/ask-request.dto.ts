import { ArrayMaxSize, IsArray, IsBoolean, Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { NestedDto } from '../../common/dto-check';
import { QUESTIONS_MAX } from '../../common/limits';
import { Optional } from '../../common/optional.decorator';
import { idProblem, IsState, overCap, valueCheck } from '../../decisions/dto/json-value.decorators';
import {
  BoxQuestionDto,
  ChoiceQuestionDto,
  NoulQuestionDto,
  questionDtoFor,
  ScoreQuestionDto,
} from '../../decisions/dto/question.dto';
import { ImageDto, MAX_IMAGES, ModelRefDto } from '../../decisions/dto/request-parts.dto';
import { QUESTION_TYPES } from '../../decisions/questions/question.types';

const ID = {
  type: 'string',
  minLength: 1,
  description: "The question's key in `answers`: unique, not empty, not __proto__, prototype or constructor.",
} as const;

/** The typed questions of `system1_ask`: each one of `decide()`'s question shapes with its `id`. */
@JSONSchema({ title: 'choice question' })
export class AskChoiceQuestionDto extends ChoiceQuestionDto {
  @Matches(/\S/, { message: 'must be a non-empty id' })
  @JSONSchema(() => ID)
  id!: string;
}

@JSONSchema({ title: 'yes/no question' })
export class AskNoulQuestionDto extends NoulQuestionDto {
  @Matches(/\S/, { message: 'must be a non-empty id' })
  @JSONSchema(() => ID)
  id!: string;
}

@JSONSchema({ title: 'score question' })
export class AskScoreQuestionDto extends ScoreQuestionDto {
  @Matches(/\S/, { message: 'must be a non-empty id' })
  @JSONSchema(() => ID)
  id!: string;
}

@JSONSchema({ title: 'box question' })
export class AskBoxQuestionDto extends BoxQuestionDto {
  @Matches(/\S/, { message: 'must be a non-empty id' })
  @JSONSchema(() => ID)
  id!: string;
}

const ASK_BY_TYPE = {
  choice: AskChoiceQuestionDto,
  noul: AskNoulQuestionDto,
  score: AskScoreQuestionDto,
  box: AskBoxQuestionDto,
} as const;
export const ASK_QUESTION_DTOS = Object.values(ASK_BY_TYPE);

function askQuestionDtoFor(question: unknown): (new () => object) | undefined {
  return questionDtoFor(question) && ASK_BY_TYPE[(question as { type: keyof typeof ASK_BY_TYPE }).type];
}

/** The questions of a call: a list of one or more, each with a unique usable id and a known type. */
const IsAskQuestions = () => valueCheck('isAskQuestions', askQuestionsProblem);

function askQuestionsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'must be a list of at least one question';
  if (value.length > QUESTIONS_MAX) return overCap(QUESTIONS_MAX, 'questions', value.length);
  const seen = new Set<string>();
  for (const [index, question] of value.entries()) {
    if (typeof question !== 'object' || question === null || Array.isArray(question))
      return `[${index}] must be an object with id, type and instructions`;
    const { id, type } = question as { id?: unknown; type?: unknown };
    if (typeof id !== 'string' || id.trim() === '') return `[${index}].id must be a non-empty id`;
    const wrongId = idProblem(id, 'id');
    if (wrongId) return `[${index}].id ${wrongId}`;
    if (seen.has(id)) return `[${index}].id repeats ${JSON.stringify(id)}: ids are the keys of answers`;
    seen.add(id);
    if (!questionDtoFor(question))
      return `[${index}].type must be one of ${QUESTION_TYPES.join(', ')} (got ${JSON.stringify(type) ?? 'nothing'})`;
  }
  return undefined;
}

/**
 * The `system1_ask` arguments: dsh-system1's agent tool. This class (with the question DTOs) is the schema:
 * `schema/ask-request.json` is generated from it.
 */
@JSONSchema({
  title: 'system1_ask request',
  description:
    'Several typed questions (choice, yes/no, score, box) about one state, ' +
    'answered in one engine pass where the engine can.',
})
export class AskRequestDto {
  @IsState()
  @JSONSchema(() => ({
    anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }],
    description: 'The text or JSON value to judge.',
  }))
  state!: unknown;

  @IsAskQuestions()
  @NestedDto(askQuestionDtoFor, 'list', (question) => `a ${(question as { type: string }).type} question`)
  @JSONSchema(() => ({
    type: 'array',
    minItems: 1,
    maxItems: QUESTIONS_MAX,
    items: { oneOf: ['Choice', 'Noul', 'Score', 'Box'].map((type) => ({ $ref: `#/$defs/Ask${type}QuestionDto` })) },
    description: 'The questions; each `id` is its key in `answers`.',
  }))
  questions!: unknown[];

  @Optional()
  @IsArray({ message: 'must be a list of {mediaType, data}' })
  @ArrayMaxSize(MAX_IMAGES, { message: `may hold at most ${MAX_IMAGES} images` })
  @NestedDto(() => ImageDto, 'list', () => 'an image')
  @JSONSchema(() => ({
    type: 'array',
    maxItems: MAX_IMAGES,
    items: { $ref: '#/$defs/ImageDto' },
    description: 'Images every question may look at; a box question needs one.',
  }))
  images?: unknown[];

  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  @JSONSchema({ description: "Ask for the engine's extended context, where it has one." })
  longContext?: boolean;

  @Optional()
  @NestedDto(() => ModelRefDto, 'one', () => 'a model reference {provider, model?}')
  @JSONSchema(() => ({
    $ref: '#/$defs/ModelRefDto',
    description: 'Run this engine alone; the configured chain when left out.',
  }))
  model?: unknown;
}
