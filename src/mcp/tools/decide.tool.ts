import { Injectable } from '@nestjs/common';
import { DecideService } from '../decide/decide.service';
import { SchemaService } from '../schema/schema.service';
import { McpTool } from './mcp-tool';
import { TOOLS } from '../tool-names';

@Injectable()
export class DecideTool implements McpTool {
  readonly name = TOOLS.decide;
  readonly description =
    'Ask the fast System-1 engine one multiple-choice (or yes/no) judgement call: which tool fits, is this ' +
    'command destructive, which option applies. Returns the decision with a calibrated confidence, or ' +
    '"abstained" when unsure: then reason it through yourself. Not for writing, maths or multi-step reasoning.';

  constructor(
    private readonly decider: DecideService,
    private readonly schemas: SchemaService,
  ) {}

  inputSchema() {
    return this.schemas.get().request;
  }

  async call(args: unknown, signal?: AbortSignal, requestId?: string) {
    const response = await this.decider.decide(args, requestId, signal);
    return { result: { ...response }, isError: response.status === 'error' };
  }
}
