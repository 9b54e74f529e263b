import { CloudflareProviderDefinition } from '../system-one/cloudflare.provider';
import { type ProviderFactoryOptions, providerFrom } from './provider-factory';

export interface CloudflareProviderOptions extends ProviderFactoryOptions {
  /** The Cloudflare account that runs Workers AI. */
  accountId: string;
}

/**
 * Cloudflare Workers AI's Clef, for `registerProvider`. The API token is read from `apiKeyEnv` (default
 * `CLOUDFLARE_API_TOKEN`) at each call, or given as `apiKey`.
 */
export function createCloudflareProvider(options: CloudflareProviderOptions) {
  return providerFrom(CloudflareProviderDefinition, options, {
    defaultKeyEnv: 'CLOUDFLARE_API_TOKEN',
    extra: { account_id: options?.accountId },
  });
}
