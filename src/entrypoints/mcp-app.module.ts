import { Module } from '@nestjs/common';
import { LoggingModule } from '../logging/logging.module';
import { McpModule } from '../mcp/mcp.module';
import { System1Module } from '../system1/system1.module';

/**
 * The container for `system1 mcp` alone. Clients start the server with every session, so it skips what
 * only the CLI needs (nest-commander, the commands, the MCP client used by smoke).
 */
@Module({ imports: [System1Module.forRoot(), LoggingModule, McpModule] })
export class McpAppModule {}
