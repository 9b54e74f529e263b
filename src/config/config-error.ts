/**
 * One problem with the configuration. A broken config never stops the server: problems are collected,
 * `system1_health` reports them and `system1_decide` answers `config_error` with them.
 */
export interface ConfigError {
  /** The config file's path, or `environment` for a variable. */
  file: string;
  /** The key: `gateway.timeout_s`, `providers.mock.delay_s`, or the variable's name. */
  key: string;
  /** A whole sentence that names the file and the key, safe to show (never a secret's value). */
  message: string;
}

export const ENVIRONMENT = 'environment';

export function configError(file: string, key: string, problem: string): ConfigError {
  const where = file === ENVIRONMENT ? `environment variable ${key}` : `${file}: ${key}`;
  return { file, key, message: `${where} ${problem}` };
}

/** Keys that hold credentials. They belong in environment variables, never in the file. */
const SECRET_KEY = /(^|_)(api_?key|key|token|secret|password|passwd)$/i;

export function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key);
}
