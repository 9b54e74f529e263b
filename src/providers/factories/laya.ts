import { LAYA } from '../system-one/laya.provider';
import { type ProviderFactoryOptions, providerFrom } from './provider-factory';

export type { ProviderFactoryOptions };

/**
 * Laya through laya-serve, for `registerProvider`: `system1.registerProvider('laya', createLayaProvider())`.
 * The key is read from `apiKeyEnv` (default `LAYA_API_KEY`, laya-serve's own name for it).
 */
export function createLayaProvider(options: ProviderFactoryOptions = {}) {
  return providerFrom(LAYA, options, { factory: 'createLayaProvider', defaultKeyEnv: 'LAYA_API_KEY' });
}
