/**
 * The provider kit (`system1-gateway/provider-kit`): what a team outside this repository needs to write an
 * HTTP engine with the same guards as the built-in ones. Every request goes through `EngineHttpClient`:
 * loopback unless `allow_remote`, no proxy for loopback, no redirects, a 1 MiB reply cap, the attempt's
 * signal, and errors that never show a header or a key. See docs/writing-a-provider.md.
 *
 * @example
 * import { EngineHttpClient, httpEngineSettings, localConnection, text } from 'system1-gateway/provider-kit';
 */
export { EngineHttpClient, MAX_RESPONSE_BYTES } from './providers/http/engine-http.client';
export type { EngineRequest, EngineResponse } from './providers/http/engine-http.client';
export { EngineConnection, hostedConnection, localConnection } from './providers/http/engine-connection';
export type { EngineCall } from './providers/http/engine-connection';
export { configuredEndpoint, httpEngineSettings, secretFromEnv } from './providers/http/http-settings';
export type { HttpEngineSettings } from './providers/http/http-settings';
export { decimal, flag, integer, list, text } from './config/setting-types';
export type { SettingType } from './config/setting-types';
export type {
  ProviderCreateContext,
  ProviderSettingSpec,
  ProviderSettingSpecs,
} from './decisions/registry/provider.interface';
export { EngineStatusError, EngineTransportError } from './decisions/errors/decision-error';
export { SystemOneDefinition } from './providers/system-one/systemone.definition';
export type {
  AnsweredBy,
  DialectEngine,
  KeyWords,
  SystemOneDialect,
  SystemOneSettings,
} from './providers/system-one/systemone-dialect';
