import { IsIn } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { NestedDto } from '../../common/dto-check';
import { CANDIDATES_MAX, LEVELS_MAX } from '../../common/limits';
import { Optional } from '../../common/optional.decorator';
import { IsCandidates, IsDescribed, IsLevels } from './json-value.decorators';

type SchemaObject = Exclude<Parameters<typeof JSONSchema>[0], (...args: never[]) => unknown>;

/** Text, or JSON an engine renders as text; never empty. */
const DESCRIBED: SchemaObject = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'object', minProperties: 1 },
    { type: 'array', minItems: 1 },
  ],
};

/**
 * The typed questions (wire-contracts §1.1), one DTO per type: the one schema of a question for every surface
 * that takes them. `questionDtoFor` picks the class from a question's `type`.
 */
@JSONSchema({ title: 'choice question', description: 'Pick one of named candidates.' })
export class ChoiceQuestionDto {
  @IsIn(['choice'])
  type!: 'choice';

  @IsDescribed()
  @JSONSchema(() => ({ ...DESCRIBED, description: 'What to decide: text, or JSON rendered as text.' }))
  instructions!: unknown;

  @IsCandidates()
  @JSONSchema(() => ({
    type: 'object',
    minProperties: 2,
    maxProperties: CANDIDATES_MAX,
    additionalProperties: { anyOf: [DESCRIBED, { type: 'null' }] },
    description: 'Candidates keyed by candidate, each with a description or null (the key stands for itself).',
  }))
  criteria!: Record<string, unknown>;
}

@JSONSchema({ title: 'yes/no criteria', description: 'What true and false mean, when the instructions leave it open.' })
export class NoulCriteriaDto {
  @Optional()
  @IsDescribed()
  @JSONSchema(() => DESCRIBED)
  true?: unknown;

  @Optional()
  @IsDescribed()
  @JSONSchema(() => DESCRIBED)
  false?: unknown;
}

@JSONSchema({ title: 'yes/no question', description: 'Is a statement true? Answered as the probability that it is.' })
export class NoulQuestionDto {
  @IsIn(['noul'])
  type!: 'noul';

  @IsDescribed()
  @JSONSchema(() => DESCRIBED)
  instructions!: unknown;

  @Optional()
  @NestedDto(() => NoulCriteriaDto, 'one', () => 'yes/no criteria ("true" and/or "false" descriptions)')
  @JSONSchema(() => ({ $ref: '#/$defs/NoulCriteriaDto' }))
  criteria?: unknown;
}

@JSONSchema({ title: 'score question', description: 'Place the state on ordered levels, lowest first.' })
export class ScoreQuestionDto {
  @IsIn(['score'])
  type!: 'score';

  @IsDescribed()
  @JSONSchema(() => DESCRIBED)
  instructions!: unknown;

  @IsLevels()
  @JSONSchema(() => ({
    type: 'array',
    minItems: 2,
    maxItems: LEVELS_MAX,
    items: DESCRIBED,
    description: 'The levels, lowest first.',
  }))
  criteria!: unknown[];
}

@JSONSchema({ title: 'box question', description: "Locate something in the request's images." })
export class BoxQuestionDto {
  @IsIn(['box'])
  type!: 'box';

  @IsDescribed()
  @JSONSchema(() => DESCRIBED)
  instructions!: unknown;
}

const BY_TYPE = {
  choice: ChoiceQuestionDto,
  noul: NoulQuestionDto,
  score: ScoreQuestionDto,
  box: BoxQuestionDto,
} as const;

/** The DTO of a question by its `type`; undefined for an unknown type (reported by the question map's check). */
export function questionDtoFor(question: unknown): (new () => object) | undefined {
  const type = (question as { type?: unknown } | null)?.type;
  return typeof type === 'string' && Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type as keyof typeof BY_TYPE] : undefined;
}

export const QUESTION_DTOS = Object.values(BY_TYPE);
