import { Injectable } from '@nestjs/common';
import { AskService } from '../ask/ask.service';
import { SchemaService } from '../schema/schema.service';
import { McpTool } from './mcp-tool';
import { TOOLS } from '../tool-names';

@Injectable()
export class AskTool implements McpTool {
  readonly name = TOOLS.ask;
  readonly description =
    'Ask the fast System-1 engine several typed questions about one state in one call: choice (pick a ' +
    'candidate key), noul (is a statement true: probabilityTrue), score (place it on levels listed lowest first) ' +
    'and box (locate something in an attached image). Use it instead of several system1_decide calls when the ' +
    'questions share their context, or when you need a yes/no probability, a rating or a location. Each answer ' +
    'comes back under its id, or an error for that question alone. Probabilities range from 0 to 1; score.value ' +
    'is the zero-based expected criteria index; box edges are fractions of the image (0 at the top and left); ' +
    'confidence is backend-defined and not comparable across engines, and probabilities from different models ' +
    'are not calibrated against each other (see model in the result).';

  constructor(
    private readonly asker: AskService,
    private readonly schemas: SchemaService,
  ) {}

  inputSchema() {
    return this.schemas.get().askRequest;
  }

  async call(args: unknown, signal?: AbortSignal, requestId?: string) {
    const { response, invalid } = await this.asker.ask(args, signal, requestId);
    return { result: response, isError: invalid };
  }
}
