/** The MCP tools, fixed by the contract: the three S1 tools and `system1_ask`. */
export const TOOL_NAMES = ['system1_decide', 'system1_health', 'system1_capabilities', 'system1_ask'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
