import { Injectable } from '@nestjs/common';
import { HealthService } from '../../decisions/pipeline/health.service';
import { DecisionTally } from '../decision-tally';
import { SERVED_PROTOCOL_VERSIONS } from '../protocol-revisions';
import { declareTool, McpTool } from './mcp-tool';

@Injectable()
export class HealthTool implements McpTool {
  static readonly declaration = declareTool({
    name: 'system1_health',
    description:
      'Check the System-1 gateway: ok, degraded (primary engine down, a fallback up), down or paused, ' +
      'with config errors, a probe per provider, and what this process decided since it started.',
    decides: false,
  });

  constructor(
    private readonly health: HealthService,
    private readonly tally: DecisionTally,
  ) {}

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
