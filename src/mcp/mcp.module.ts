import { Module } from '@nestjs/common';
import { GatewayModule } from '../system1/gateway.module';
import { McpServerService } from './mcp-server.service';
import { CapabilitiesTool } from './tools/capabilities.tool';
import { DecideTool } from './tools/decide.tool';
import { HealthTool } from './tools/health.tool';
import { MCP_TOOLS, McpTool } from './tools/mcp-tool';

/** The tools, in the order clients list them. */
const TOOLS = [DecideTool, HealthTool, CapabilitiesTool];

@Module({
  imports: [GatewayModule],
  providers: [...TOOLS, { provide: MCP_TOOLS, useFactory: (...tools: McpTool[]) => tools, inject: TOOLS }, McpServerService],
  exports: [McpServerService],
})
export class McpModule {}
