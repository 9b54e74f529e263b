/**
 * The package's library entry point: `const system1 = await createSystem1(); await system1.decide({...})`.
 * See docs/library.md. The MCP server and the commands are `bin/system1` (dist/main.js), not this file. A
 * team's HTTP engine takes the guarded client and the settings helpers from `system1-gateway/provider-kit`.
 */
export { createSystem1, system1From } from './library/create-system1';
export type { System1 } from './library/create-system1';
export type { System1Options } from './library/library-options';
export type { CustomProvider, DshCapabilities, DshProvider, PickingProvider } from './library/custom-provider';
export type { ProviderFactoryOptions } from './providers/factories/provider-factory';
export type { ChoiceAsk, ChoiceCapabilities, ChoicePick, ChoiceState } from './providers/choice/choice-provider';
export { ChoiceProvider } from './providers/choice/choice-provider';
export {
  DecisionErrorCode,
  MalformedResponseError,
  ProviderError,
  System1ProviderError,
} from './decisions/errors/decision-error';
export { System1Module } from './system1/system1.module';
export type { System1ModuleOptions } from './system1/system1.module';
export { System1InputError } from './decisions/errors/input-error';
export type { QuestionCapabilities } from './decisions/questions/question-capabilities';
export * from './decisions/questions/question.types';
export * from './library/library.types';
export { ProviderSettingError } from './decisions/registry/provider.interface';
export type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  ProviderDefinition,
  System1Provider,
} from './decisions/registry/provider.interface';
export { SYSTEM1_PROVIDERS, System1ProviderDefinition } from './decisions/registry/providers.token';
export { ChoiceEngine, System1Engine } from './deprecated-names';
