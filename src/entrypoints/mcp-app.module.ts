import { Module } from '@nestjs/common';
import { System1ConfigModule } from '../config/config.module';
import { LoggingModule } from '../logging/logging.module';
import { McpModule } from '../mcp/mcp.module';

/**
 * The container for `system1 mcp` alone. Clients start the server with every session, so it skips what
 * only the CLI needs (nest-commander, the commands, the MCP client used by smoke).
 */
@Module({ imports: [System1ConfigModule, LoggingModule, McpModule] })
export class McpAppModule {}
