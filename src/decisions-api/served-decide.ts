import { type DecisionError, DecisionErrorCode } from '../decisions/errors/decision-error';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { DecisionSurface, QuestionOutcome } from '../decisions/questions/decision.types';
import type { ModelRef, Question } from '../decisions/questions/question.types';
import { keyedMap } from '../common/own-keys';
import type { ModelChoice } from './model-catalog';
import type { ServedRequest } from './served-request';

/** What a served request came to, by question id. */
export interface ServedOutcome {
  outcomes: Map<string, QuestionOutcome>;
  /** The engine that answered (none when no engine did). */
  engines: ModelRef[];
  usage: { inputTokens: number; outputTokens: number };
  /** No engine answered: the last failure (every question then carries one). */
  unanswered?: DecisionError;
}

/** One served call: who asks (the metrics' surface) and under which id, and the threshold it asked for. */
export interface ServedCall {
  requestId: string;
  surface: DecisionSurface;
  /** The request's or the alias's threshold; undefined: no answer is held below one. */
  minConfidence?: number;
}

/**
 * Asks the pipeline the request's questions as one decision, with the surface's policy: in passes when they
 * are more than an engine takes at once (400 questions to an engine of 64 go in 7 requests, each engine of
 * the chain by its own limits), no threshold unless the call asks for one (neither `[gateway] min_confidence`
 * nor the router's applies here), a bad answer failing its question alone.
 */
export async function decideServed(
  decisions: Pick<DecisionService, 'decide'>,
  request: ServedRequest,
  choice: ModelChoice,
  call: ServedCall,
): Promise<ServedOutcome> {
  const questions = keyedMap<Question>();
  for (const { id, question } of request.questions) questions[id] = question;
  const outcome = await decisions.decide(
    {
      ...(request.state !== undefined && { state: request.state }),
      questions,
      ...(request.images && { images: request.images }),
      ...(request.longContext && { longContext: true }),
      ...(choice.model && { model: choice.model }),
      ...(call.minConfidence !== undefined && { minConfidence: call.minConfidence }),
      requestId: call.requestId,
    },
    {
      surface: call.surface,
      retryBadAnswers: false,
      minConfidence: 0,
      inPasses: true,
      ...(choice.chain && { chain: choice.chain }),
    },
  );
  const outcomes = new Map(request.questions.map(({ id }) => [id, outcome.answers[id]]));
  const usage = { inputTokens: outcome.usage?.inputTokens ?? 0, outputTokens: outcome.usage?.outputTokens ?? 0 };
  if (outcome.executed) return { outcomes, engines: [outcome.executed], usage };
  const failed = [...outcomes.values()].find((answer) => answer.status === 'error');
  const unanswered =
    failed?.status === 'error'
      ? failed.error
      : { code: DecisionErrorCode.Unavailable, message: 'no engine could answer' };
  return { outcomes, engines: [], usage, unanswered };
}
