import type { DecisionRequest } from '../decisions/questions/decision.types';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import { type DecideResult, questionResults } from '../decisions/questions/question-results';

/** What the router asks: the conversation as the state, one question per schema field, its threshold, its cancel. */
export type FastRequest = Required<Pick<DecisionRequest, 'state' | 'questions' | 'minConfidence' | 'signal'>>;

/**
 * The port the router asks the fast engine through, answering in the per-question view; bound to the
 * pipeline in OpenAiRouterModule. Tests bind a stub.
 */
export const FAST_DECIDER = Symbol('FAST_DECIDER');
export type FastDecider = (request: FastRequest) => Promise<DecideResult>;

/**
 * The fast engine as the one pipeline: the engine, fallbacks and calibration of the user's config, a bad
 * answer left on its own field (which then sends the request upstream). The questions were built from the
 * schema by `schemaToQuestions`, which holds them to the pipeline's limits, so nothing is checked again here.
 */
export function pipelineDecider(decisions: DecisionService, timeoutMs: number): FastDecider {
  return async (request) =>
    questionResults(await decisions.decide(request, { surface: 'openai_router', retryBadAnswers: false, timeoutMs }));
}
