import { Injectable } from '@nestjs/common';
import { NoulCriteriaDto } from '../../decisions/dto/question.dto';
import { ImageDto, ModelRefDto } from '../../decisions/dto/request-parts.dto';
import { AskService } from '../ask/ask.service';
import { ASK_QUESTION_DTOS, AskRequestDto } from '../dto/ask-request.dto';
import { AskResponseDto } from '../dto/ask-response.dto';
import { declareTool, McpTool } from './mcp-tool';

@Injectable()
export class AskTool implements McpTool {
  static readonly declaration = declareTool({
    name: 'system1_ask',
    description:
      'Ask the fast System-1 engine several typed questions about one state in one call: choice (pick a ' +
      'candidate key), noul (is a statement true: probabilityTrue), score (place it on levels listed lowest first) ' +
      'and box (locate something in an attached image). Use it instead of several system1_decide calls when the ' +
      'questions share their context, or when you need a yes/no probability, a rating or a location. Each answer ' +
      'comes back under its id, or an error for that question alone. Probabilities range from 0 to 1; score.value ' +
      'is the zero-based expected criteria index; box edges are fractions of the image (0 at the top and left); ' +
      'confidence is backend-defined and not comparable across engines, and probabilities from different models ' +
      'are not calibrated against each other (see model in the result).',
    request: {
      file: 'ask-request.json',
      dto: AskRequestDto,
      defs: [...ASK_QUESTION_DTOS, NoulCriteriaDto, ImageDto, ModelRefDto],
    },
    response: { file: 'ask-response.json', dto: AskResponseDto },
    decides: true,
  });

  constructor(private readonly asker: AskService) {}

  async call(args: unknown, signal?: AbortSignal, requestId?: string) {
    const { response, invalid } = await this.asker.ask(args, signal, requestId);
    return { result: response, isError: invalid };
  }
}
