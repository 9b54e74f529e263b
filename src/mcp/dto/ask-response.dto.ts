import { Optional } from '../../common/optional.decorator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { QUESTION_ERROR_CODES } from '../../decisions/questions/question-results';

/** A hand-written schema: the shapes here are the pipeline's answer types, which no decorator infers. */
const rawSchema = (schema: object) => JSONSchema(schema as Parameters<typeof JSONSchema>[0]);

const PROBABILITY = { type: 'number', minimum: 0, maximum: 1 } as const;
const ERROR = {
  type: 'object',
  properties: {
    code: { type: 'string', enum: [...QUESTION_ERROR_CODES] },
    message: { type: 'string' },
    httpStatus: { type: 'integer' },
  },
  required: ['code', 'message'],
  additionalProperties: false,
} as const;
const MODEL = {
  type: 'object',
  properties: { provider: { type: 'string' }, model: { type: 'string' } },
  required: ['provider'],
  additionalProperties: false,
} as const;
const ANSWER = {
  oneOf: [
    {
      type: 'object',
      properties: {
        type: { const: 'choice' },
        value: { type: 'string' },
        probabilities: { type: 'object', additionalProperties: PROBABILITY },
        confidence: PROBABILITY,
        calibrated: { type: 'boolean' },
      },
      required: ['type', 'value', 'probabilities', 'confidence', 'calibrated'],
    },
    {
      type: 'object',
      properties: {
        type: { const: 'noul' },
        value: { type: 'boolean' },
        probabilityTrue: PROBABILITY,
        confidence: PROBABILITY,
        calibrated: { type: 'boolean' },
      },
      required: ['type', 'value', 'probabilityTrue', 'confidence', 'calibrated'],
    },
    {
      type: 'object',
      properties: {
        type: { const: 'score' },
        value: { type: 'number', minimum: 0 },
        level: { type: 'integer', minimum: 0 },
        distribution: { type: 'array', items: PROBABILITY },
        confidence: PROBABILITY,
        calibrated: { type: 'boolean' },
      },
      required: ['type', 'value', 'level', 'distribution', 'confidence', 'calibrated'],
    },
    {
      type: 'object',
      properties: {
        type: { const: 'box' },
        box: {
          type: 'object',
          properties: { top: PROBABILITY, bottom: PROBABILITY, left: PROBABILITY, right: PROBABILITY },
          required: ['top', 'bottom', 'left', 'right'],
        },
        confidence: PROBABILITY,
      },
      required: ['type', 'box'],
    },
  ],
} as const;

/**
 * The `system1_ask` result: dsh-system1's agent tool result, plus the engine's `approximate`/`degraded`
 * flags when it gave them. Invalid arguments get the gateway's envelope instead (`status`, `error`). This
 * class is the schema: `schema/ask-response.json` is generated from it (every field may be absent: an
 * answered call has `answers`, an invalid one `status` and `error`).
 */
@JSONSchema({ title: 'system1_ask response' })
export class AskResponseDto {
  @Optional()
  @rawSchema({
    type: 'object',
    additionalProperties: {
      oneOf: [
        {
          type: 'object',
          properties: { status: { const: 'ok' }, answer: ANSWER },
          required: ['status', 'answer'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { status: { const: 'error' }, error: ERROR },
          required: ['status', 'error'],
          additionalProperties: false,
        },
      ],
    },
    description: "Each question's id to its answer, or to the error that question alone met.",
  })
  answers?: unknown;

  @Optional()
  @rawSchema({ ...MODEL, description: 'The engine and model that answered; absent when none did.' })
  model?: unknown;

  @Optional()
  @rawSchema({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        provider: { type: 'string' },
        model: { type: 'string' },
        endpoint: {
          type: 'string',
          description: 'The replica asked, when the provider is a pool of several endpoints.',
        },
        error: ERROR,
      },
      required: ['provider', 'error'],
    },
    description: 'Engines that failed before one answered (or all of them), in order; a cancelled attempt is left out.',
  })
  fallbacks?: unknown;

  @Optional()
  @rawSchema({
    type: 'boolean',
    description: "True when probabilities were spread from an engine's single confidence.",
  })
  approximate?: boolean;

  @Optional()
  @rawSchema({ type: 'boolean', description: 'Engine-reported degraded service.' })
  degraded?: boolean;

  @Optional()
  @rawSchema({
    type: 'boolean',
    const: true,
    description:
      'Present when the answers came from the decision cache (an identical request within ' +
      'cache_ttl_s): no engine was asked.',
  })
  cached?: boolean;

  @Optional()
  @rawSchema({ type: 'array', items: { type: 'string' }, description: 'Things worth knowing that failed nothing.' })
  warnings?: unknown;

  @Optional()
  @rawSchema({
    type: 'string',
    enum: ['error'],
    description: 'Only with invalid arguments: then `error` says what was wrong.',
  })
  status?: string;

  @Optional()
  @rawSchema({
    type: 'object',
    properties: { code: { const: 'invalid_request' }, message: { type: 'string' } },
    required: ['code', 'message'],
    additionalProperties: false,
  })
  error?: unknown;
}
