import type { Tool } from '@modelcontextprotocol/server';
import { buildSchemas, capabilityKeyOf, type JsonSchema } from './schema/schema-export';
import { NO_ARGUMENTS, type ToolDeclaration } from './tools/mcp-tool';

/**
 * The tools as clients see them, from the one tool list's declarations (tool-list.ts provides it with them,
 * so that the services a tool needs may use it without importing the tools): the listing of `tools/list`, the
 * names and schemas `system1_capabilities` publishes, and the files of schema/. Built once, on first use: the
 * schemas are fixed for the life of the process.
 */
export class ToolCatalog {
  private schemas?: Readonly<Record<string, JsonSchema>>;
  private listing?: { tools: Tool[] };

  constructor(private readonly declarations: readonly ToolDeclaration[]) {}

  names(): string[] {
    return this.declarations.map((tool) => tool.name);
  }

  /** Every tool's request and response schema by its file in schema/, in the tools' order. */
  schemaFiles(): Readonly<Record<string, JsonSchema>> {
    return (this.schemas ??= buildSchemas(this.declarations));
  }

  /** The same schemas under their keys in `system1_capabilities`. */
  capabilitySchemas(): Record<string, JsonSchema> {
    return Object.fromEntries(
      Object.entries(this.schemaFiles()).map(([file, schema]) => [capabilityKeyOf(file), schema]),
    );
  }

  /** The answer to `tools/list`. */
  toolList(): { tools: Tool[] } {
    return (this.listing ??= {
      tools: this.declarations.map(({ name, description, request }) => ({
        name,
        description,
        inputSchema: (request ? this.schemaFiles()[request.file] : NO_ARGUMENTS) as Tool['inputSchema'],
      })),
    });
  }
}
