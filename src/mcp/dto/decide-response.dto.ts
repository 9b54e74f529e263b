import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsIn, IsNumber, IsString, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, ERROR_CODES, GatewayErrorCode } from '../decide/gateway-error';
import { SCHEMA_VERSION } from '../../common/limits';
import { Optional } from '../../common/optional.decorator';

export const DECISION_STATUSES = ['decided', 'abstained', 'error'] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];

/**
 * A field that is always present but may be null. The function form replaces what the converter inferred
 * (it cannot express null, nor nested classes without class-transformer's storage).
 */
const nullable = (schema: Record<string, unknown>, description: string) =>
  JSONSchema(() => ({ anyOf: [schema, { type: 'null' }], description }));

@JSONSchema({ title: 'attempt', description: 'One provider tried for this decision, in order.' })
export class AttemptDto {
  @IsString()
  provider!: string;

  @IsIn(ATTEMPT_OUTCOMES)
  @JSONSchema({
    description:
      'ok: answered; abstained: answered below the threshold or declined; ' +
      'timeout, error, malformed: failed (detail says why); ' +
      'hedged: the second copy of a request, sent to another replica of the pool ' +
      'after hedge_after_ms, answered first; ' +
      'cancelled: the copy of a hedged request that lost the race, stopped before it answered; ' +
      'cached: answered from the decision cache (an identical request within cache_ttl_s), no engine asked.',
  })
  outcome!: AttemptOutcome;

  @IsNumber()
  @Min(0)
  latency_ms!: number;

  @Allow()
  @nullable(
    { type: 'string' },
    'Why the attempt did not decide (status, timeout, what was malformed); null when it did.',
  )
  detail!: string | null;

  @Optional()
  @IsString()
  @JSONSchema({ description: 'The replica asked, when the provider is a pool of several endpoints; absent otherwise.' })
  endpoint?: string;
}

@JSONSchema({ title: 'error' })
export class ErrorDto {
  @IsIn(ERROR_CODES)
  code!: GatewayErrorCode;

  @IsString()
  message!: string;
}

/** The `system1_decide` result. This class is the schema: `schema/response.json` is generated from it. */
@JSONSchema({ title: 'system1_decide response' })
export class DecideResponseDto {
  @IsIn([SCHEMA_VERSION])
  schema_version!: string;

  @IsString()
  request_id!: string;

  @IsIn(DECISION_STATUSES)
  status!: DecisionStatus;

  @Allow()
  @nullable({ type: 'string' }, 'One of the options; null when abstained or on error.')
  decision!: string | null;

  @Allow()
  @nullable(
    { type: 'number', minimum: 0, maximum: 1 },
    'Probability of the decision, after calibration when a fit matches.',
  )
  confidence!: number | null;

  @Allow()
  @nullable(
    { type: 'object', additionalProperties: { type: 'number', minimum: 0, maximum: 1 } },
    'Per-option probabilities, when the provider reports them.',
  )
  probabilities!: Record<string, number> | null;

  @IsBoolean()
  @JSONSchema({
    description:
      'True when a trusted fitted temperature was applied (fits under the trust floor are listed in ' +
      'system1_capabilities but not applied).',
  })
  calibrated!: boolean;

  @Allow()
  @nullable({ type: 'string' }, "The provider's explanation, or why the gateway abstained.")
  rationale!: string | null;

  @Allow()
  @nullable({ type: 'string' }, 'The provider that answered.')
  provider!: string | null;

  @IsNumber()
  @Min(0)
  @JSONSchema({ description: 'Total time in milliseconds.' })
  latency_ms!: number;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => AttemptDto)
  @JSONSchema(() => ({
    type: 'array',
    items: { $ref: '#/$defs/AttemptDto' },
    description: 'Every provider tried, in order.',
  }))
  attempts!: AttemptDto[];

  @Allow()
  @nullable({ $ref: '#/$defs/ErrorDto' }, 'null, or what went wrong.')
  error!: ErrorDto | null;
}
