import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { ToolDeclaration, ToolSchema } from '../tools/mcp-tool';

export type JsonSchema = Record<string, unknown>;

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const BASE_URL = 'https://system1-gateway.dev/schema';

/** `ask-request.json` is published by `system1_capabilities` as `ask_request_schema`. */
export const capabilityKeyOf = (file: string) => `${file.replace(/\.json$/, '').replace(/-/g, '_')}_schema`;

/**
 * Builds the tools' published JSON Schemas from their DTO classes, so the schema and the validation are one
 * rule: by file name, each tool's request, then its response, in the tools' order. Every object is closed
 * (`additionalProperties: false`), because the gateway rejects unknown fields.
 */
export function buildSchemas(tools: readonly ToolDeclaration[]): Record<string, JsonSchema> {
  const definitions = validationMetadatasToSchemas({
    refPointerPrefix: '#/$defs/',
    classValidatorMetadataStorage: getMetadataStorage(),
  }) as Record<string, JsonSchema>;
  const closed = (name: string): JsonSchema => ({ ...definitions[name], additionalProperties: false });
  const publish = ({ file, dto, defs }: ToolSchema): [string, JsonSchema] => [
    file,
    {
      $schema: DRAFT,
      $id: `${BASE_URL}/${file}`,
      ...closed(dto.name),
      ...(defs ? { $defs: Object.fromEntries(defs.map((def) => [def.name, closed(def.name)])) } : {}),
    },
  ];
  const schemas = tools.flatMap(({ request, response }) =>
    [request, response].filter((schema) => schema !== undefined),
  );
  return Object.fromEntries(schemas.map(publish));
}
