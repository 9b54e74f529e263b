import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { DecideResponseDto } from '../dto/decide-response.dto';
import { ASK_QUESTION_DTOS, AskRequestDto } from '../dto/ask-request.dto';
import { AskResponseDto } from '../dto/ask-response.dto';
import { NoulCriteriaDto } from '../../decisions/dto/question.dto';
import { ImageDto, ModelRefDto } from '../../decisions/dto/request-parts.dto';

type JsonSchema = Record<string, unknown>;

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const BASE_URL = 'https://system1-gateway.dev/schema';

/**
 * Builds the published JSON Schemas from the DTO classes, so the schema and the validation are one rule.
 * Every object is closed (`additionalProperties: false`), because the gateway rejects unknown fields.
 */
export function buildSchemas(): {
  request: JsonSchema;
  response: JsonSchema;
  askRequest: JsonSchema;
  askResponse: JsonSchema;
} {
  const definitions = validationMetadatasToSchemas({
    refPointerPrefix: '#/$defs/',
    classValidatorMetadataStorage: getMetadataStorage(),
  }) as Record<string, JsonSchema>;
  const closed = (name: string): JsonSchema => ({ ...definitions[name], additionalProperties: false });

  const request = closed(DecideRequestDto.name);
  const response = closed(DecideResponseDto.name);
  return {
    request: { $schema: DRAFT, $id: `${BASE_URL}/request.json`, ...request },
    response: {
      $schema: DRAFT,
      $id: `${BASE_URL}/response.json`,
      ...response,
      $defs: { AttemptDto: closed('AttemptDto'), ErrorDto: closed('ErrorDto') },
    },
    askRequest: {
      $schema: DRAFT,
      $id: `${BASE_URL}/ask-request.json`,
      ...closed(AskRequestDto.name),
      $defs: Object.fromEntries(
        [...ASK_QUESTION_DTOS, NoulCriteriaDto, ImageDto, ModelRefDto].map((Dto) => [Dto.name, closed(Dto.name)]),
      ),
    },
    askResponse: { $schema: DRAFT, $id: `${BASE_URL}/ask-response.json`, ...closed(AskResponseDto.name) },
  };
}
