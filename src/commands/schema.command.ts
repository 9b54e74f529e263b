import { Command, CommandRunner, Option } from 'nest-commander';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureDir } from '../config/ensure-dir';
import { PACKAGE_ROOT } from '../config/paths';
import { buildLibraryRequestSchema } from '../library/dto/library-schema';
import { ToolCatalog } from '../mcp/tool-catalog';
import { OutputWriter } from './output.writer';

export const SCHEMA_DIR = path.join(PACKAGE_ROOT, 'schema');
/** The one file of schema/ that is no tool's: the library's `decide()` request. */
export const LIBRARY_REQUEST_FILE = 'library-request.json';

@Command({ name: 'schema', description: 'write the JSON Schemas in schema/ from the DTOs' })
export class SchemaCommand extends CommandRunner {
  constructor(
    private readonly tools: ToolCatalog,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], options: { check?: boolean }): Promise<void> {
    const files = {
      ...this.tools.schemaFiles(),
      [LIBRARY_REQUEST_FILE]: buildLibraryRequestSchema(),
    };
    if (options.check) {
      const drifted = Object.entries(files)
        .filter(([name, schema]) => read(name) !== render(schema))
        .map(([name]) => name);
      if (drifted.length === 0) return this.output.out(`schema: ${SCHEMA_DIR} matches the DTOs`);
      this.output.err(`schema: ${drifted.join(', ')} differ from the DTOs; run "system1 schema" and commit the result`);
      return this.output.fail(1);
    }
    ensureDir(SCHEMA_DIR);
    for (const [name, schema] of Object.entries(files)) writeFileSync(path.join(SCHEMA_DIR, name), render(schema));
    this.output.err(`schema: wrote ${Object.keys(files).join(', ')} in ${SCHEMA_DIR}`);
  }

  @Option({ flags: '--check', description: 'fail when the committed files differ from the DTOs' })
  parseCheck(): boolean {
    return true;
  }
}

export const render = (schema: unknown) => `${JSON.stringify(schema, null, 2)}\n`;

function read(name: string): string | null {
  try {
    return readFileSync(path.join(SCHEMA_DIR, name), 'utf8');
  } catch {
    return null;
  }
}
