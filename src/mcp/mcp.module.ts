import { Module } from '@nestjs/common';
import { CapabilitiesService } from './capabilities.service';
import { DecideService } from './decide/decide.service';
import { SchemaService } from './schema/schema.service';
import { McpServerService } from './mcp-server.service';
import { CapabilitiesTool } from './tools/capabilities.tool';
import { DecideTool } from './tools/decide.tool';
import { HealthTool } from './tools/health.tool';
import { MCP_TOOLS, McpTool } from './tools/mcp-tool';

/** The tools, in the order clients list them. */
const TOOLS = [DecideTool, HealthTool, CapabilitiesTool];

@Module({
  providers: [DecideService, CapabilitiesService, SchemaService, ...TOOLS, { provide: MCP_TOOLS, useFactory: (...tools: McpTool[]) => tools, inject: TOOLS }, McpServerService],
  exports: [McpServerService, DecideService, CapabilitiesService, SchemaService],
})
export class McpModule {}
