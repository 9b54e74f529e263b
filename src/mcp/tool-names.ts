/** The three MCP tools, fixed by the contract. */
export const TOOL_NAMES = ['system1_decide', 'system1_health', 'system1_capabilities'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
