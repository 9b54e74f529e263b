import { Injectable } from '@nestjs/common';
import { DecideService } from '../decide/decide.service';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { AttemptDto, DecideResponseDto, ErrorDto } from '../dto/decide-response.dto';
import { declareTool, McpTool } from './mcp-tool';

@Injectable()
export class DecideTool implements McpTool {
  static readonly declaration = declareTool({
    name: 'system1_decide',
    description:
      'Ask the fast System-1 engine one multiple-choice (or yes/no) judgement call: which tool fits, is this ' +
      'command destructive, which option applies. Returns the decision with a calibrated confidence, or ' +
      '"abstained" when unsure: then reason it through yourself. Not for writing, maths or multi-step reasoning.',
    request: { file: 'request.json', dto: DecideRequestDto },
    response: { file: 'response.json', dto: DecideResponseDto, defs: [AttemptDto, ErrorDto] },
    decides: true,
  });

  constructor(private readonly decider: DecideService) {}

  call(args: unknown, signal?: AbortSignal, requestId?: string) {
    return (
      this.decider
        .decide(args, requestId, signal)
        // The response is plain data already (DecideService builds it as a literal): no copy to make.
        .then((response) => ({
          result: response as unknown as Record<string, unknown>,
          isError: response.status === 'error',
        }))
    );
  }
}
