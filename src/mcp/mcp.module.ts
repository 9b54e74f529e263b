import { Module } from '@nestjs/common';
import { CapabilitiesService } from './capabilities.service';
import { DecisionTally } from './decision-tally';
import { DecideService } from './decide/decide.service';
import { SchemaService } from './schema/schema.service';
import { McpServerService } from './mcp-server.service';
import { AskService } from './ask/ask.service';
import { AskTool } from './tools/ask.tool';
import { CapabilitiesTool } from './tools/capabilities.tool';
import { DecideTool } from './tools/decide.tool';
import { HealthTool } from './tools/health.tool';
import { MCP_TOOLS, McpTool } from './tools/mcp-tool';

/** The tools, in the order clients list them. */
const TOOLS = [DecideTool, HealthTool, CapabilitiesTool, AskTool];

@Module({
  providers: [
    DecideService,
    AskService,
    CapabilitiesService,
    SchemaService,
    DecisionTally,
    ...TOOLS,
    { provide: MCP_TOOLS, useFactory: (...tools: McpTool[]) => tools, inject: TOOLS },
    McpServerService,
  ],
  exports: [McpServerService, DecideService, AskService, CapabilitiesService, SchemaService],
})
export class McpModule {}
