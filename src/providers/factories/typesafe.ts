import { TYPESAFE } from '../system-one/typesafe.provider';
import { type ProviderFactoryOptions, providerFrom } from './provider-factory';

export type { ProviderFactoryOptions };

/** What `createTypesafeProvider` takes: a hosted API is remote already, so there is no `allowRemote`. */
export type TypesafeProviderOptions = Omit<ProviderFactoryOptions, 'allowRemote'>;

/**
 * TypeSafe's hosted Jev API, for `registerProvider`. The key is read from `apiKeyEnv` (default
 * `TYPESAFE_API_KEY`) at each call, or given as `apiKey`. An HTTP 422 stays `provider_error`, with `httpStatus`.
 *
 * @example
 * system1.registerProvider(createTypesafeProvider({ id: 'jev' })); // answers as provider "jev"
 */
export function createTypesafeProvider(options: TypesafeProviderOptions = {}) {
  return providerFrom(TYPESAFE, options, { factory: 'createTypesafeProvider', defaultKeyEnv: 'TYPESAFE_API_KEY' });
}
