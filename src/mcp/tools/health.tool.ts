import { Injectable } from '@nestjs/common';
import { HealthService } from '../../decisions/health.service';
import { McpTool, NO_ARGUMENTS } from './mcp-tool';

@Injectable()
export class HealthTool implements McpTool {
  readonly name = 'system1_health';
  readonly description =
    'Check the System-1 gateway: ok, degraded (primary engine down, a fallback up), down or paused, with config errors and a probe per provider.';

  constructor(private readonly health: HealthService) {}

  inputSchema() {
    return NO_ARGUMENTS;
  }

  async call() {
    return { result: { ...(await this.health.health()) }, isError: false };
  }
}
