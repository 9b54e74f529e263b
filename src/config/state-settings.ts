import { type ConfigError, configError, ENVIRONMENT } from './config-error';
import { envName, type StateSettings } from './config-keys';
import type { Env } from './paths';

/** The variable the store's password may come from, beside a password in SYSTEM1_STATE_URL. */
export const STATE_PASSWORD_VARIABLE = 'SYSTEM1_STATE_PASSWORD';

const SCHEMES = new Set(['redis:', 'rediss:']);

/**
 * `[state] url` checked, never echoed: a URL may carry a password, so no message quotes it. A password written in
 * the file is refused (secrets come from the environment only); a URL that is not `redis://` or `rediss://` is
 * refused. Either way the url is dropped, so the processes keep their own state rather than guess.
 */
export function checkStateSettings(state: StateSettings, file: string, env: Env, errors: ConfigError[]): StateSettings {
  if (state.url === '') return state;
  const variable = envName('state', 'url');
  const fromEnv = env[variable] !== undefined;
  const where = (problem: string) =>
    fromEnv ? configError(ENVIRONMENT, variable, problem) : configError(file, 'state.url', problem);
  let url: URL;
  try {
    url = new URL(state.url);
  } catch {
    errors.push(where('must be a Redis URL (redis://host:port or rediss://host:port for TLS)'));
    return { ...state, url: '' };
  }
  if (!SCHEMES.has(url.protocol) || url.hostname === '') {
    errors.push(where('must be a Redis URL (redis://host:port or rediss://host:port for TLS)'));
    return { ...state, url: '' };
  }
  if (!fromEnv && url.password !== '') {
    errors.push(
      where(
        `holds a password: secrets are read from environment variables only (${STATE_PASSWORD_VARIABLE}, ` +
          `or the whole URL in ${variable}), remove it from the file`,
      ),
    );
    return { ...state, url: '' };
  }
  return state;
}

/** Where the store is, as logs and `system1_health` may show it: scheme, host and port, never a credential. */
export function stateStoreAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
