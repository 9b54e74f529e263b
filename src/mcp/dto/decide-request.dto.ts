import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import {
  OPTION_MAX_CHARS,
  OPTIONS_MAX,
  OPTIONS_MIN,
  QUESTION_MAX_CHARS,
  REQUEST_ID_MAX_CHARS,
  SCHEMA_VERSION,
} from '../../common/limits';
import { BoundedJson, CONTEXT_MAX_BYTES, CONTEXT_MAX_DEPTH } from './json-limits.decorator';
import { Optional } from '../../common/optional.decorator';

const NOT_BLANK = /\S/;

/** The `system1_decide` arguments. This class is the schema: `schema/request.json` is generated from it. */
@JSONSchema({
  title: 'system1_decide request',
  description: 'One multiple-choice (or yes/no) question for the System-1 engine.',
})
export class DecideRequestDto {
  @IsString()
  @MinLength(1)
  @MaxLength(QUESTION_MAX_CHARS)
  @Matches(NOT_BLANK, { message: 'question must not be blank' })
  @JSONSchema({ description: 'The question to decide.' })
  question!: string;

  @Optional()
  @IsArray()
  @ArrayMinSize(OPTIONS_MIN)
  @ArrayMaxSize(OPTIONS_MAX)
  @ArrayUnique({ message: 'options must be unique' })
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(OPTION_MAX_CHARS, { each: true })
  @Matches(NOT_BLANK, { each: true, message: 'each option must not be blank' })
  @JSONSchema({
    description:
      'The candidates; the decision is exactly one of them. Leave out for a yes/no question. ' +
      'A provider may accept fewer (see system1_capabilities).',
  })
  options?: string[];

  @Optional()
  @IsObject()
  @BoundedJson(CONTEXT_MAX_DEPTH, CONTEXT_MAX_BYTES)
  // The function form replaces what the converter infers: it knows nothing of the custom size decorator.
  @JSONSchema(() => ({
    type: 'object',
    description:
      'Facts the engine decides on, passed to the provider as the state: ' +
      `at most ${CONTEXT_MAX_DEPTH} levels deep and ${CONTEXT_MAX_BYTES} bytes as JSON.`,
  }))
  context?: Record<string, unknown>;

  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  @JSONSchema({ description: 'Abstain below this confidence; overrides the configured threshold.' })
  min_confidence?: number;

  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(REQUEST_ID_MAX_CHARS)
  @JSONSchema({ description: 'Echoed back and carried by every log line; generated when left out.' })
  request_id?: string;

  @Optional()
  @IsIn([SCHEMA_VERSION])
  @JSONSchema({ description: 'The contract version.' })
  schema_version?: string;
}
