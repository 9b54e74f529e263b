import type { Provider } from '@nestjs/common';
import { ToolCatalog } from './tool-catalog';
import { AskTool } from './tools/ask.tool';
import { CapabilitiesTool } from './tools/capabilities.tool';
import { DecideTool } from './tools/decide.tool';
import { HealthTool } from './tools/health.tool';
import { type McpTool, type McpToolClass, TOOL_HANDLERS, type ToolDeclaration } from './tools/mcp-tool';

/**
 * The one tool list: every MCP tool, in the order clients list them. Adding a tool is its class (with its
 * declaration), its service, its DTOs and one line here; the names, the module's providers, the tool listing,
 * schema/ and `system1_capabilities` are read off this list (test/unit/mcp/tool-list.spec.ts holds that).
 */
export const TOOL_CLASSES = [
  DecideTool,
  HealthTool,
  CapabilitiesTool,
  AskTool,
] as const satisfies readonly McpToolClass[];

export type ToolName = (typeof TOOL_CLASSES)[number]['declaration']['name'];

export const DECLARED_TOOLS: readonly ToolDeclaration<ToolName>[] = TOOL_CLASSES.map((tool) => tool.declaration);

export const TOOL_NAMES: readonly ToolName[] = DECLARED_TOOLS.map((tool) => tool.name);

/** What McpModule provides for the tools: each handler, built once, by name, and the catalog of their declarations. */
export const TOOL_PROVIDERS: Provider[] = [
  ...TOOL_CLASSES,
  { provide: ToolCatalog, useFactory: () => new ToolCatalog(DECLARED_TOOLS) },
  {
    provide: TOOL_HANDLERS,
    useFactory: (...handlers: McpTool[]) => new Map(handlers.map((handler, index) => [TOOL_NAMES[index], handler])),
    inject: [...TOOL_CLASSES],
  },
];
