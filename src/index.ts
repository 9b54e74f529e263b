/**
 * The package's library entry point: `const system1 = await createSystem1(); await system1.decide({...})`.
 * See docs/library.md. The MCP server and the commands are `bin/system1` (dist/main.js), not this file.
 */
export { createSystem1 } from './library/create-system1';
export type { System1 } from './library/create-system1';
export type { System1Options } from './decisions/decision-options';
export type { CustomProvider } from './decisions/custom-provider';
export { System1ProviderError } from './decisions/attempt-error';
export { System1InputError } from './decisions/input-error';
export type { QuestionCapabilities } from './decisions/question-capabilities';
export * from './decisions/question.types';
export { MalformedResponseError, ProviderError, ProviderSettingError } from './decisions/provider.interface';
export type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  ProviderDefinition,
  System1Provider,
} from './decisions/provider.interface';
export { SYSTEM1_PROVIDERS, System1Engine } from './decisions/providers.token';
