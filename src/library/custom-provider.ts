import { System1InputError } from '../decisions/input-error';
import type { AttemptContext, HealthProbeResult, ProviderCapabilities, System1Provider } from '../decisions/provider.interface';
import { type ChoiceAsk, type ChoiceState, choiceQuestionCapabilities, evaluateByPicks } from '../providers/choice/choice-engine';

/** An engine that only picks among options, given as one object: asked typed questions as choices. */
export interface PickingProvider {
  capabilities(): ProviderCapabilities;
  /** One of `ask.options`, with its confidence (and per-option probabilities when the engine has them). */
  pick(ask: ChoiceAsk, state: ChoiceState, context: AttemptContext): Promise<unknown>;
  health?(context: AttemptContext): Promise<HealthProbeResult>;
}

/**
 * An engine an application registers at run time (`system1.registerProvider(name, engine)`): the provider
 * interface itself (`evaluate`), or a `pick` over options for an engine that only chooses. Honour
 * `context.signal`: it aborts at the attempt's timeout, when the caller cancels, and when the registration
 * is disposed.
 */
export type CustomProvider = System1Provider | PickingProvider;

export function asProvider(name: string, engine: CustomProvider): System1Provider {
  const candidate = engine as Partial<System1Provider & PickingProvider> | null | undefined;
  if (typeof candidate?.capabilities !== 'function' || (typeof candidate.evaluate !== 'function' && typeof candidate.pick !== 'function')) {
    throw new System1InputError(JSON.stringify(name), 'must implement capabilities() and evaluate() or pick()');
  }
  if (typeof candidate.evaluate === 'function') return engine as System1Provider;
  const picking = engine as PickingProvider;
  return {
    capabilities: () => {
      const facts = picking.capabilities();
      return { ...facts, questions: choiceQuestionCapabilities(facts) };
    },
    evaluate: (request, context) => evaluateByPicks(request, context, (ask, state) => picking.pick(ask, state, context)),
    ...(picking.health && { health: (context: AttemptContext) => picking.health!(context) }),
  };
}
