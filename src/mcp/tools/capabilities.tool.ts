import { Injectable } from '@nestjs/common';
import { CapabilitiesService } from '../capabilities.service';
import { McpTool, NO_ARGUMENTS } from './mcp-tool';
import { TOOLS } from '../tool-names';

@Injectable()
export class CapabilitiesTool implements McpTool {
  readonly name = TOOLS.capabilities;
  readonly description =
    'Describe the System-1 gateway: versions, provider chain, timeout and threshold, ' +
    'what each provider accepts, calibration fits, and the request and response JSON Schemas.';

  constructor(private readonly capabilities: CapabilitiesService) {}

  inputSchema() {
    return NO_ARGUMENTS;
  }

  async call() {
    return { result: { ...this.capabilities.capabilities() }, isError: false };
  }
}
