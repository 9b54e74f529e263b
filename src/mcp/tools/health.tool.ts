import { Injectable } from '@nestjs/common';
import { HealthService } from '../../decisions/pipeline/health.service';
import { DecisionTally } from '../decision-tally';
import { SERVED_PROTOCOL_VERSIONS } from '../protocol-revisions';
import { McpTool, NO_ARGUMENTS } from './mcp-tool';
import { TOOLS } from '../tool-names';

@Injectable()
export class HealthTool implements McpTool {
  readonly name = TOOLS.health;
  readonly description =
    'Check the System-1 gateway: ok, degraded (primary engine down, a fallback up), down or paused, ' +
    'with config errors, a probe per provider, and what this process decided since it started.';

  constructor(
    private readonly health: HealthService,
    private readonly tally: DecisionTally,
  ) {}

  inputSchema() {
    return NO_ARGUMENTS;
  }

  async call() {
    return {
      result: {
        ...(await this.health.health()),
        metrics: this.tally.summary(),
        mcp_protocol_versions: [...SERVED_PROTOCOL_VERSIONS],
      },
      isError: false,
    };
  }
}
