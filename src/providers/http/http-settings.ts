import { flag, text } from '../../config/setting-types';
import { ProviderSettingError, type ProviderSettingSpecs } from '../../decisions/registry/provider.interface';
import { EndpointError, type EndpointRules, parseEndpoint } from './endpoint';

/** The settings every HTTP engine shares: where it listens, and the opt-in for another machine. */
export type HttpEngineSettings = { endpoint: string; allow_remote: boolean };

/** The specs of {@link HttpEngineSettings}, the endpoint defaulting to the engine's usual address. */
export function httpEngineSettings(defaultEndpoint: string): ProviderSettingSpecs<HttpEngineSettings> {
  return {
    endpoint: { type: text({ nonEmpty: true }), default: defaultEndpoint, describe: 'base URL of the engine' },
    allow_remote: { type: flag(), default: false, describe: 'allow an endpoint that is not this machine' },
  };
}

/** The configured endpoint, checked at configure time so a bad one is a config error naming `endpoint`. */
export function configuredEndpoint(
  settings: { readonly endpoint: string; readonly allow_remote?: boolean },
  rules: Partial<EndpointRules> = {},
): URL {
  try {
    return parseEndpoint(settings.endpoint, { allowRemote: settings.allow_remote === true, ...rules });
  } catch (error) {
    if (error instanceof EndpointError) throw new ProviderSettingError('endpoint', error.message);
    throw error;
  }
}

/** A secret from the environment, read when it is needed so a rotated key takes effect without a restart. */
export function secretFromEnv(env: Readonly<Record<string, string | undefined>>, variable: string): string | undefined {
  const value = env[variable]?.trim();
  return value ? value : undefined;
}
