import { Module } from '@nestjs/common';
import { GatewayModule } from '../gateway/gateway.module';
import { McpModule } from '../mcp/mcp.module';
import { SmokeService } from '../mcp/smoke.service';
import { McpCommand } from './mcp.command';
import { OutputWriter } from './output.writer';
import { SchemaCommand } from './schema.command';
import { SmokeCommand } from './smoke.command';
import { ToggleCommand } from './toggle.command';

@Module({
  imports: [GatewayModule, McpModule],
  providers: [OutputWriter, SmokeService, McpCommand, SmokeCommand, ToggleCommand, SchemaCommand],
})
export class CommandsModule {}
