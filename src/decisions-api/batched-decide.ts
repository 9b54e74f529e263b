import { type DecisionError, DecisionErrorCode } from '../decisions/errors/decision-error';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { DecisionSurface, QuestionOutcome } from '../decisions/questions/decision.types';
import type { ModelRef, Question } from '../decisions/questions/question.types';
import type { ModelChoice } from './model-catalog';
import { chainLimits, inBatches } from './question-batches';
import type { ServedRequest } from './served-request';

/** What a served request's batches came to, joined back in question order. */
export interface BatchedOutcome {
  /** By question id. */
  outcomes: Map<string, QuestionOutcome>;
  /** The engines that answered, each once, in the order they first did. */
  engines: ModelRef[];
  usage: { inputTokens: number; outputTokens: number };
  /** No engine answered any batch: the last failure (every question then carries one). */
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
 * Asks the pipeline the request's questions in batches each engine of the model takes, one after the other
 * (an engine is not flooded), with the surface's policy: no threshold unless the call asks for one (neither
 * `[gateway] min_confidence` nor the router's applies here), a bad answer failing its question alone.
 */
export async function decideInBatches(
  decisions: Pick<DecisionService, 'decide' | 'resolveCapabilities'>,
  request: ServedRequest,
  choice: ModelChoice,
  call: ServedCall,
): Promise<BatchedOutcome> {
  const questions = request.questions.map(({ id, question }): [string, Question] => [id, question]);
  const limits = chainLimits(choice.engines.map((ref) => decisions.resolveCapabilities(ref)?.questions));
  const byId = new Map(questions);
  const joined: BatchedOutcome = { outcomes: new Map(), engines: [], usage: { inputTokens: 0, outputTokens: 0 } };
  let answeredAny = false;
  let last: DecisionError | undefined;
  for (const batch of inBatches(questions, limits)) {
    const outcome = await decisions.decide(
      {
        ...(request.state !== undefined && { state: request.state }),
        questions: Object.fromEntries(batch.map((id) => [id, byId.get(id)!])),
        ...(request.images && { images: request.images }),
        ...(request.longContext && { longContext: true }),
        ...(choice.model && { model: choice.model }),
        ...(call.minConfidence !== undefined && { minConfidence: call.minConfidence }),
        requestId: call.requestId,
      },
      { surface: call.surface, retryBadAnswers: false, minConfidence: 0, ...(choice.chain && { chain: choice.chain }) },
    );
    for (const id of batch) joined.outcomes.set(id, outcome.answers[id]);
    if (outcome.executed) {
      answeredAny = true;
      const executed = outcome.executed;
      const known = joined.engines.some((ref) => ref.provider === executed.provider && ref.model === executed.model);
      if (!known) joined.engines.push(executed);
    } else {
      const failed = Object.values(outcome.answers).find((answer) => answer.status === 'error');
      last = failed?.status === 'error' ? failed.error : last;
    }
    joined.usage.inputTokens += outcome.usage?.inputTokens ?? 0;
    joined.usage.outputTokens += outcome.usage?.outputTokens ?? 0;
  }
  if (!answeredAny)
    joined.unanswered = last ?? { code: DecisionErrorCode.Unavailable, message: 'no engine could answer' };
  return joined;
}
