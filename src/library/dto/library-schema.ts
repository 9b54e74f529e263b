import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { QUESTION_DTOS, NoulCriteriaDto } from '../../decisions/dto/question.dto';
import { ImageDto, ModelRefDto } from '../../decisions/dto/request-parts.dto';
import { LibraryDecideRequestDto } from './library-request.dto';

type JsonSchema = Record<string, unknown>;

/**
 * `schema/library-request.json`: the library call's JSON Schema, generated from the same DTOs that check it
 * (the typed question DTOs are the ones every surface that takes typed questions uses). Every object is
 * closed, as the check refuses unknown fields; `signal` is described but is not JSON.
 */
export function buildLibraryRequestSchema(): JsonSchema {
  const definitions = validationMetadatasToSchemas({
    refPointerPrefix: '#/$defs/',
    classValidatorMetadataStorage: getMetadataStorage(),
  }) as Record<string, JsonSchema>;
  const closed = (name: string): JsonSchema => ({ ...definitions[name], additionalProperties: false });
  const nested = [...QUESTION_DTOS, NoulCriteriaDto, ImageDto, ModelRefDto].map((Dto) => Dto.name);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://system1-gateway.dev/schema/library-request.json',
    ...closed(LibraryDecideRequestDto.name),
    $defs: Object.fromEntries(nested.map((name) => [name, closed(name)])),
  };
}
