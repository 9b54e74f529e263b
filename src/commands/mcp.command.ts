import { Command, CommandRunner } from 'nest-commander';
import { McpServerService } from '../mcp/mcp-server.service';

@Command({
  name: 'mcp',
  description: 'serve the System-1 tools (decide, health, capabilities, ask) over stdio (what MCP clients register)',
})
export class McpCommand extends CommandRunner {
  constructor(private readonly server: McpServerService) {
    super();
  }

  async run(): Promise<void> {
    // nest-commander closes the app when run() returns, so this resolves only when the client disconnects.
    await this.server.serveStdio();
  }
}
