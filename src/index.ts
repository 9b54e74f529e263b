/**
 * The package's library entry point: `const system1 = await createSystem1(); await system1.decide({...})`.
 * See docs/library.md. The MCP server and the commands are `bin/system1` (dist/main.js), not this file.
 */
export { createSystem1 } from './library/create-system1';
export type { System1 } from './library/create-system1';
export type { System1Options } from './library/library-options';
export type { CustomProvider } from './library/custom-provider';
export { System1ProviderError } from './library/attempt-error';
export { System1InputError } from './questions/input-error';
export type { QuestionCapabilities } from './questions/question-capabilities';
export * from './questions/question.types';
export { MalformedResponseError, ProviderError, ProviderSettingError } from './providers/provider.interface';
export type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  ProviderDefinition,
  System1Provider,
} from './providers/provider.interface';
export { SYSTEM1_PROVIDERS, System1Engine } from './providers/providers.token';
