import { CLOUDFLARE } from '../system-one/cloudflare.provider';
import { type ProviderFactoryOptions, providerFrom } from './provider-factory';

/** What `createCloudflareProvider` takes: a hosted API is remote already, so there is no `allowRemote`. */
export interface CloudflareProviderOptions extends Omit<ProviderFactoryOptions, 'allowRemote'> {
  /** The Cloudflare account that runs Workers AI. */
  accountId: string;
}

/**
 * Cloudflare Workers AI's Clef, for `registerProvider`. The API token is read from `apiKeyEnv` (default
 * `CLOUDFLARE_API_TOKEN`) at each call, or given as `apiKey`.
 */
export function createCloudflareProvider(options: CloudflareProviderOptions) {
  return providerFrom(CLOUDFLARE, options, {
    factory: 'createCloudflareProvider',
    defaultKeyEnv: 'CLOUDFLARE_API_TOKEN',
    settingOptions: { accountId: 'account_id' },
  });
}
