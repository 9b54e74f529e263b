import { TypeSafeProviderDefinition } from '../system-one/typesafe.provider';
import { type ProviderFactoryOptions, providerFrom } from './provider-factory';

export type { ProviderFactoryOptions };

/**
 * TypeSafe's hosted Jev API, for `registerProvider`. The key is read from `apiKeyEnv` (default
 * `TYPESAFE_API_KEY`) at each call, or given as `apiKey`. An HTTP 422 stays `provider_error`, with `httpStatus`.
 */
export function createTypesafeProvider(options: ProviderFactoryOptions = {}) {
  return providerFrom(TypeSafeProviderDefinition, options, { defaultKeyEnv: 'TYPESAFE_API_KEY' });
}
