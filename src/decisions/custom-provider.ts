import type { AttemptContext, EvaluateReply, EvaluateRequest, HealthProbeResult, ProviderCapabilities, System1Provider } from './provider.interface';

/**
 * An engine an application registers at run time (`system1.registerProvider(name, engine)`). Give it
 * `evaluate` to take typed questions natively (and say which in `capabilities().questions`), or only
 * `decide` to be asked them as choices. Honour `context.signal`: it aborts at the attempt's timeout, when
 * the caller cancels, and when the registration is disposed.
 */
export interface CustomProvider {
  capabilities(): ProviderCapabilities;
  evaluate?(request: EvaluateRequest, context: AttemptContext): Promise<EvaluateReply>;
  decide?: System1Provider['decide'];
  health?(context: AttemptContext): Promise<HealthProbeResult>;
}
