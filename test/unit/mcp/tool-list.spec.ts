/**
 * The one tool list (src/mcp/tool-list.ts): a registered tool reaches every place a client, an installer or
 * serve-http meets it, and nothing else is published. Registering a tool and leaving one of the hand-written
 * places behind (its committed schema files, the plugin's checks, its OAuth scope) fails here; the manifest's
 * words are held by test/unit/plugin-manifest.spec.ts, each schema's bytes by test/unit/mcp/schema.spec.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { LIBRARY_REQUEST_FILE } from '../../../src/commands/schema.command';
import { ProtectedResource } from '../../../src/http-server/oauth/protected-resource';
import { capabilityKeyOf } from '../../../src/mcp/schema/schema-export';
import { DECLARED_TOOLS, TOOL_NAMES } from '../../../src/mcp/tool-list';
import { NO_ARGUMENTS } from '../../../src/mcp/tools/mcp-tool';
import { InMemoryGateways } from '../../helpers/in-memory-mcp';
import { readJson, ROOT } from '../../helpers/repo-json';

const gateways = InMemoryGateways.perFile();
const schemasOf = (tool: (typeof DECLARED_TOOLS)[number]) =>
  [tool.request, tool.response].filter((schema) => schema !== undefined);
const SCHEMA_FILES = DECLARED_TOOLS.flatMap(schemasOf).map((schema) => schema.file);

it('names each tool once, and gives each schema a file of its own', () => {
  expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
  expect(new Set([...SCHEMA_FILES, LIBRARY_REQUEST_FILE]).size).toBe(SCHEMA_FILES.length + 1);
  for (const tool of DECLARED_TOOLS) expect(tool.description.trim()).not.toBe('');
});

it('lists every registered tool, in order, with its committed request schema (or no arguments)', async () => {
  const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
  const { tools } = await gateway.client.listTools();
  expect(tools).toStrictEqual(
    DECLARED_TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.request ? readJson(`schema/${tool.request.file}`) : NO_ARGUMENTS,
    })),
  );
});

it.each(TOOL_NAMES)('answers a call of %s (its handler is registered), not "unknown tool"', async (name) => {
  const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
  const result = (await gateway.client.callTool({ name, arguments: {} })) as { structuredContent?: object };
  expect(result.structuredContent).toEqual(expect.any(Object));
});

it("publishes every tool's name and schemas in system1_capabilities, and no other schema", async () => {
  const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
  const capabilities = await gateway.capabilities();
  expect(capabilities.tools).toEqual(TOOL_NAMES);
  const published = Object.keys(capabilities).filter((key) => key.endsWith('_schema'));
  expect(published).toEqual(SCHEMA_FILES.map(capabilityKeyOf));
  for (const file of SCHEMA_FILES) {
    expect(capabilities[capabilityKeyOf(file)]).toStrictEqual(readJson(`schema/${file}`));
  }
});

it("commits exactly the tools' schema files and the library's in schema/ (run `npm run build` and commit)", () => {
  expect(readdirSync(path.join(ROOT, 'schema')).sort()).toEqual([...SCHEMA_FILES, LIBRARY_REQUEST_FILE].sort());
});

it('gives every tool an OAuth scope on serve-http', () => {
  const resource = new ProtectedResource({
    issuer: 'https://idp.example/realms/team',
    audience: 'https://system1.example/mcp',
    caller_claim: 'sub',
    scope_prefix: 'system1:',
    clock_skew_s: 30,
  });
  for (const name of TOOL_NAMES) expect(resource.scopes).toContain(resource.scopeFor(name));
});

it("has the plugin's HTTP check look for every tool in Inspector's tools/list", () => {
  const check = readFileSync(path.join(ROOT, 'test', 'plugin', 'check-http.sh'), 'utf8');
  const looked = /for tool in ([\w ]+); do/.exec(check)?.[1].split(' ');
  expect(looked).toEqual(TOOL_NAMES);
});
