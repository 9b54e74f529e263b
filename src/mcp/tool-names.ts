/** The MCP tools, fixed by the contract: the three S1 tools and `system1_ask`. Each tool takes its name here. */
export const TOOLS = {
  decide: 'system1_decide',
  health: 'system1_health',
  capabilities: 'system1_capabilities',
  ask: 'system1_ask',
} as const;
export type ToolName = (typeof TOOLS)[keyof typeof TOOLS];
export const TOOL_NAMES: readonly ToolName[] = Object.values(TOOLS);
