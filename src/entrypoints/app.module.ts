import { Module } from '@nestjs/common';
import { CommandsModule } from '../commands/commands.module';
import { LoggingModule } from '../logging/logging.module';
import { McpModule } from '../mcp/mcp.module';
import { System1Module } from '../system1/system1.module';
import { RouteHookCommand, SpawnHookCommand } from './hook.commands';

/** One container for every process role: the MCP server and the CLI share config, gateway and providers. */
@Module({
  imports: [System1Module.forRoot(), LoggingModule, McpModule, CommandsModule],
  providers: [RouteHookCommand, SpawnHookCommand],
})
export class AppModule {}
