import { Module } from '@nestjs/common';
import { CommandsModule } from '../commands/commands.module';
import { System1ConfigModule } from '../config/config.module';
import { GatewayModule } from '../system1/gateway.module';
import { LoggingModule } from '../logging/logging.module';
import { McpModule } from '../mcp/mcp.module';

/** One container for every process role: the MCP server and the CLI share config, gateway and providers. */
@Module({
  imports: [System1ConfigModule, LoggingModule, GatewayModule, McpModule, CommandsModule],
})
export class AppModule {}
