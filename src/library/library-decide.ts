import { callerModelProblem, configuredModel } from '../decisions/caller-models';
import { DecisionErrorCode } from '../decisions/decision-error';
import type { DecisionOutcome, DecisionPolicy, DecisionSurface, QuestionOutcome } from '../decisions/decision.types';
import type { DecisionService } from '../decisions/decision.service';
import { System1InputError } from '../decisions/input-error';
import type { ModelRef } from '../decisions/question.types';
import type { System1Options } from './library-options';
import type { DecideRequest, DecideResult, FailedAttempt, QuestionError, QuestionErrorCode, QuestionResult } from './library.types';
import { checkDecideRequest } from './request-check';

/** Each attempt's budget when neither the call nor the service sets one: dsh-system1's default. */
export const LIBRARY_TIMEOUT_MS = 800;

/** The pipeline's words in the library's seven (dsh-system1's), one line each. */
const LIBRARY_CODES: Readonly<Record<DecisionErrorCode, QuestionErrorCode>> = {
  [DecisionErrorCode.InvalidRequest]: 'provider_error', // thrown as System1InputError before the pipeline
  [DecisionErrorCode.ConfigError]: 'unavailable',
  [DecisionErrorCode.Paused]: 'unavailable',
  [DecisionErrorCode.Unavailable]: 'unavailable',
  [DecisionErrorCode.Unsupported]: 'unsupported',
  [DecisionErrorCode.LimitExceeded]: 'limit_exceeded',
  [DecisionErrorCode.Timeout]: 'timeout',
  [DecisionErrorCode.Cancelled]: 'cancelled',
  [DecisionErrorCode.ProviderError]: 'provider_error',
  [DecisionErrorCode.InvalidResponse]: 'invalid_response',
  [DecisionErrorCode.Abstained]: 'unsupported',
  [DecisionErrorCode.CoolingDown]: 'unavailable',
};

/**
 * The library's `decide` over the one pipeline: dsh-system1's behaviour, where a bad answer stays on its
 * own question and the other answers stand. Throws {@link System1InputError} for a malformed call.
 */
export async function libraryDecide(
  decisions: DecisionService,
  request: DecideRequest,
  options: System1Options = {},
  surface: DecisionSurface = 'library',
): Promise<DecideResult> {
  checkDecideRequest(request);
  const policy: DecisionPolicy = {
    surface,
    retryBadAnswers: false,
    timeoutMs: options.timeoutMs ?? LIBRARY_TIMEOUT_MS,
    ...(options.minConfidence !== undefined && { minConfidence: options.minConfidence }),
    ...((options.defaultModel || options.fallbackModels) && { chain: libraryChain(decisions, options) }),
    ...(options.cooldown === false && { cooldown: false }),
    ...(options.waitForRecovery !== undefined && { waitForRecovery: options.waitForRecovery }),
    ...(options.hedgeAfterMs !== undefined && { hedgeAfterMs: options.hedgeAfterMs }),
  };
  const chain = decisions.chainFor(request.model, policy);
  if (chain.length === 0 || !chain[0].provider) throw new System1InputError('model', 'is needed: no default model is configured');
  if (request.model && options.callerModels) {
    const rule = { allowed: options.callerModels, chain: libraryChain(decisions, options), widenedBy: 'the callerModels option' };
    const refused = callerModelProblem(request.model, rule, (provider) => configuredModel(decisions, provider));
    if (refused) throw new System1InputError('model', refused);
  }
  // Checked above: the call holds the request's fields and no other.
  const outcome = await decisions.decide(request, policy);
  return libraryResult(outcome);
}

/** The engines a call without a model tries: the options' defaults over the config's. */
export function libraryChain(decisions: DecisionService, options: System1Options): ModelRef[] {
  const configured = decisions.chainFor(undefined);
  return [options.defaultModel ?? configured[0], ...(options.fallbackModels ?? configured.slice(1))];
}

/** The pipeline's outcome in the library's (dsh-system1's) shape. */
export function libraryResult(outcome: DecisionOutcome): DecideResult {
  const answers = Object.fromEntries(Object.entries(outcome.answers).map(([id, answer]) => [id, libraryAnswer(answer)]));
  // A cancelled attempt is the caller's doing, not the engine's failure; a skipped one was never asked.
  const failed: FailedAttempt[] = outcome.attempts
    .filter((attempt) => attempt.outcome === 'failed' && attempt.error?.code !== DecisionErrorCode.Cancelled)
    .map(({ provider, model, endpoint, error }) => ({ provider, ...(model !== undefined && { model }), ...(endpoint !== undefined && { endpoint }), error: libraryError(error!) }));
  return {
    answers,
    meta: {
      requestId: outcome.requestId,
      requested: outcome.requested,
      ...(outcome.executed && { executed: outcome.executed }),
      ...(failed.length > 0 && { attempts: failed }),
      ...(outcome.attempts.some((attempt) => attempt.outcome === 'cached') && { cached: true as const }),
      durationMs: outcome.durationMs,
      ...(outcome.usage && { usage: outcome.usage }),
      ...(outcome.approximate !== undefined && { approximate: outcome.approximate }),
      ...(outcome.degraded !== undefined && { degraded: outcome.degraded }),
      ...(outcome.warnings && { warnings: outcome.warnings }),
    },
  };
}

function libraryAnswer(outcome: QuestionOutcome): QuestionResult {
  if (outcome.status === 'error') return { status: 'error', error: libraryError(outcome.error) };
  return { status: 'ok', answer: outcome.answer, belowThreshold: outcome.belowThreshold };
}

function libraryError(error: { code: DecisionErrorCode; message: string; httpStatus?: number }): QuestionError {
  return { code: LIBRARY_CODES[error.code], message: error.message, ...(error.httpStatus !== undefined && { httpStatus: error.httpStatus }) };
}
