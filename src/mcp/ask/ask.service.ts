import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { checkDto } from '../../common/dto-check';
import { keyedMap } from '../../common/own-keys';
import { CallerModels } from '../../decisions/callers/caller-models.service';
import { DecisionService } from '../../decisions/pipeline/decision.service';
import type { DecisionState, ImageAttachment, Question } from '../../decisions/questions/question.types';
import { questionResults } from '../../decisions/questions/question-results';
import { AskRequestDto } from '../dto/ask-request.dto';
import { boxWithoutImage } from '../../decisions/dto/json-value.decorators';
import { GatewayErrorCode } from '../decide/gateway-error';

export type AskResponse = Record<string, unknown>;

/**
 * `system1_ask` over the one pipeline: dsh-system1's agent tool. The questions list becomes the pipeline's
 * named questions, and its per-question view the tool's `{answers, model?, fallbacks?}`: a bad answer stays on
 * its own question (the library's behaviour), and invalid arguments fail the whole call, naming the field.
 */
@Injectable()
export class AskService {
  private readonly logger = new Logger('Ask');

  constructor(
    private readonly decisions: DecisionService,
    private readonly callerModels: CallerModels,
  ) {}

  /** `requestId`: the id the transport knows the call by (the HTTP request's), for the log lines; else a new one. */
  async ask(
    raw: unknown,
    signal?: AbortSignal,
    requestId: string = randomUUID(),
  ): Promise<{ response: AskResponse; invalid: boolean }> {
    const problem = checkAsk(raw) ?? this.modelProblem(raw);
    if (problem) {
      this.logger.warn(`[${requestId}] ${problem}`);
      const error = { code: GatewayErrorCode.InvalidRequest, message: problem };
      return { response: { status: 'error', error }, invalid: true };
    }
    const request = raw as {
      state: DecisionState;
      questions: ({ id: string } & Question)[];
      images?: ImageAttachment[];
      longContext?: boolean;
      model?: { provider: string; model?: string };
    };
    const questions = keyedMap<Question>();
    for (const { id, ...question } of request.questions) questions[id] = question;
    const outcome = await this.decisions.decide(
      {
        state: request.state,
        questions,
        ...(request.images && { images: request.images }),
        ...(request.longContext && { longContext: true }),
        ...(request.model && { model: request.model }),
        ...(signal && { signal }),
        requestId,
      },
      { retryBadAnswers: false, surface: 'system1_ask' },
    );
    const { answers, meta } = questionResults(outcome);
    this.logger.log(
      `[${requestId}] ${Object.keys(answers).length} questions, ` +
        `${meta.executed ? `answered by ${meta.executed.provider}` : 'no engine answered'}`,
    );
    return {
      response: {
        answers: Object.fromEntries(
          Object.entries(answers).map(([id, result]) => [
            id,
            result.status === 'ok' ? { status: 'ok', answer: result.answer } : result,
          ]),
        ),
        ...(meta.executed && { model: meta.executed }),
        ...(meta.attempts && { fallbacks: meta.attempts }),
        ...(meta.approximate !== undefined && { approximate: meta.approximate }),
        ...(meta.degraded !== undefined && { degraded: meta.degraded }),
        ...(meta.cached && { cached: true }),
        ...(meta.warnings && { warnings: meta.warnings }),
      },
      invalid: false,
    };
  }

  /** A `model` this server's callers may not choose (checked arguments): nothing is sent to it. */
  private modelProblem(raw: unknown): string | undefined {
    const { model } = raw as { model?: { provider: string; model?: string } };
    const refused = model && this.callerModels.problem(model);
    return refused ? `invalid request: model ${refused}` : undefined;
  }
}

/** What is wrong with the arguments, naming the field; undefined when nothing is. */
function checkAsk(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'invalid request: the arguments must be a JSON object';
  const [first] = checkDto(AskRequestDto, raw, '', 'the system1_ask arguments');
  if (first) return `invalid request: ${first.field} ${first.problem}`;
  const { questions, images } = raw as { questions: { id: string; type: string }[]; images?: unknown[] };
  const box = boxWithoutImage([...questions.entries()], images);
  if (box !== undefined)
    return `invalid request: questions[${box}] is a box question, which needs at least one image in images`;
  return undefined;
}
