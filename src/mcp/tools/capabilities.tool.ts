import { Injectable } from '@nestjs/common';
import { CapabilitiesService } from '../capabilities.service';
import { declareTool, McpTool } from './mcp-tool';

@Injectable()
export class CapabilitiesTool implements McpTool {
  static readonly declaration = declareTool({
    name: 'system1_capabilities',
    description:
      'Describe the System-1 gateway: versions, provider chain, timeout and threshold, ' +
      'what each provider accepts, calibration fits, and the request and response JSON Schemas.',
    decides: false,
  });

  constructor(private readonly capabilities: CapabilitiesService) {}

  async call() {
    return { result: { ...this.capabilities.capabilities() }, isError: false };
  }
}
