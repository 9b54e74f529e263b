import { callerModelProblem, configuredModel } from '../decisions/callers/caller-models';
import type { DecisionPolicy } from '../decisions/questions/decision.types';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import { System1InputError } from '../decisions/errors/input-error';
import type { ModelRef } from '../decisions/questions/question.types';
import { questionResults } from '../decisions/questions/question-results';
import type { System1Options } from './library-options';
import type { DecideRequest, DecideResult } from './library.types';
import { assertLibraryRequest } from './request-check';

/** Each attempt's budget when neither the call nor the service sets one: dsh-system1's default. */
export const LIBRARY_TIMEOUT_MS = 800;

/**
 * The library's `decide` over the one pipeline: dsh-system1's behaviour, where a bad answer stays on its
 * own question and the other answers stand. Throws {@link System1InputError} for a malformed call.
 */
export async function libraryDecide(
  decisions: DecisionService,
  request: DecideRequest,
  options: System1Options = {},
): Promise<DecideResult> {
  assertLibraryRequest(request);
  const policy: DecisionPolicy = {
    surface: 'library',
    retryBadAnswers: false,
    timeoutMs: options.timeoutMs ?? LIBRARY_TIMEOUT_MS,
    ...(options.minConfidence !== undefined && { minConfidence: options.minConfidence }),
    ...((options.defaultModel || options.fallbackModels) && { chain: libraryChain(decisions, options) }),
    ...(options.cooldown === false && { cooldown: false }),
    ...(options.waitForRecovery !== undefined && { waitForRecovery: options.waitForRecovery }),
    ...(options.hedgeAfterMs !== undefined && { hedgeAfterMs: options.hedgeAfterMs }),
  };
  const chain = decisions.chainFor(request.model, policy);
  if (chain.length === 0 || !chain[0].provider)
    throw new System1InputError('model', 'is needed: no default model is configured');
  if (request.model && options.callerModels) {
    const rule = {
      allowed: options.callerModels,
      chain: libraryChain(decisions, options),
      widenedBy: 'the callerModels option',
    };
    const refused = callerModelProblem(request.model, rule, (provider) => configuredModel(decisions, provider));
    if (refused) throw new System1InputError('model', refused);
  }
  // Checked above: the call holds the request's fields and no other.
  const outcome = await decisions.decide(request, policy);
  return questionResults(outcome);
}

/** The engines a call without a model tries: the options' defaults over the config's. */
export function libraryChain(decisions: DecisionService, options: System1Options): ModelRef[] {
  const configured = decisions.chainFor(undefined);
  return [options.defaultModel ?? configured[0], ...(options.fallbackModels ?? configured.slice(1))];
}
