/**
 * The contracts (`system1-gateway/contracts`, dsh-system1's `dsh-system1/contracts`): the types of a call, its
 * result and a provider, and the error classes the library throws, without the service itself. Loading it
 * starts nothing (no Nest, no engines), so a team's provider package can depend on it alone. The classes are
 * the ones the library throws, so `instanceof` holds whichever entry point the error came from.
 *
 * @example
 * import type { DshProvider, DecideResult } from 'system1-gateway/contracts';
 * import { System1InputError, System1ProviderError } from 'system1-gateway/contracts';
 */
export type * from './decisions/questions/question.types';
export type {
  DecideMeta,
  DecideRequest,
  DecideResult,
  FailedAttempt,
  QuestionError,
  QuestionErrorCode,
  QuestionResult,
} from './library/library.types';
export type { System1 } from './library/create-system1';
export type { System1Options } from './library/library-options';
export type { CustomProvider, DshCapabilities, DshProvider, PickingProvider } from './library/custom-provider';
export type { ProviderFactoryOptions } from './providers/factories/provider-factory';
export type { TypesafeProviderOptions } from './providers/factories/typesafe';
export type { CloudflareProviderOptions } from './providers/factories/cloudflare';
export type { ChoiceAsk, ChoiceCapabilities, ChoicePick, ChoiceState } from './providers/choice/choice-provider';
export type { QuestionCapabilities } from './decisions/questions/question-capabilities';
export type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  ProviderCreateContext,
  ProviderDefinition,
  ProviderSettingSpec,
  ProviderSettingSpecs,
  System1Provider,
} from './decisions/registry/provider.interface';
export type { DecisionError } from './decisions/errors/decision-error';

export {
  DecisionErrorCode,
  EngineStatusError,
  EngineTransportError,
  MalformedResponseError,
  ProviderError,
  System1ProviderError,
} from './decisions/errors/decision-error';
export { System1InputError } from './decisions/errors/input-error';
export { ProviderSettingError } from './decisions/registry/provider.interface';
