import { Module } from '@nestjs/common';
import { CapabilitiesService } from './capabilities.service';
import { DecisionTally } from './decision-tally';
import { DecideService } from './decide/decide.service';
import { McpServerService } from './mcp-server.service';
import { AskService } from './ask/ask.service';
import { ToolCatalog } from './tool-catalog';
import { TOOL_PROVIDERS } from './tool-list';

@Module({
  providers: [DecideService, AskService, CapabilitiesService, DecisionTally, ...TOOL_PROVIDERS, McpServerService],
  exports: [McpServerService, DecideService, AskService, CapabilitiesService, ToolCatalog],
})
export class McpModule {}
