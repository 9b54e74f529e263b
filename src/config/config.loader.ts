import * as path from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { isRecord } from '../common/is-record';
import { keyedMap, ownValue } from '../common/own-keys';
import { FILE_CAPS, readFailureReason, readRegularFileSync } from '../common/regular-file';
import { type ConfigError, configError, ENVIRONMENT, looksSecret } from './config-error';
import {
  DECISION_MODEL_KEYS,
  type DecisionModelSettings,
  type EnginesSettings,
  envName,
  type GatewaySettings,
  HTTP_CALLER_KEYS,
  HTTP_OAUTH_KEYS,
  type HttpCallerSettings,
  type HttpOAuthSettings,
  type HttpSettings,
  type KeySpec,
  type RouterSettings,
  type RoutingSettings,
  type SectionName,
  SECTIONS,
  type SkillsSettings,
  type StateSettings,
} from './config-keys';
import { type Env, expandHome, homeOf, installDir, locateConfigFile } from './paths';
import { settingProblem } from './setting-types';
import { checkStateSettings } from './state-settings';

/** Everything read from the file and the environment, before providers are configured. */
export interface LoadedConfig {
  /** The file that was read; null when none exists at the default place (all defaults). */
  configFile: string | null;
  installDir: string;
  gateway: GatewaySettings;
  routing: RoutingSettings;
  skills: SkillsSettings;
  router: RouterSettings;
  http: HttpSettings;
  /** `[state]`: the store shared by a deployment's processes; `url` empty = each process keeps its own. */
  state: StateSettings;
  /** `[engines]`: `modules` as absolute paths. */
  engines: EnginesSettings;
  /** `[http.callers.<name>]`: named callers' policies, each key left out filled from `[http]`. */
  httpCallers: Record<string, HttpCallerSettings>;
  /** `[http.oauth]`, when the table is there. */
  httpOAuth?: HttpOAuthSettings;
  /** `[decisions.models.<alias>]`: the model names the operator offers on the served Decisions API. */
  decisionModels: Record<string, DecisionModelSettings>;
  /** `[providers.<name>]` tables as written, secrets removed; each provider validates its own. */
  providerTables: Record<string, Record<string, unknown>>;
  /** Keys of `[providers.<name>]` that held a secret (values dropped): the registry reports them, since only
   * the provider's definition knows which variable the key belongs in. */
  providerSecrets: Record<string, string[]>;
  errors: ConfigError[];
}

export interface LoadOptions {
  env: Env;
  readFile?: (file: string) => string;
  platform?: NodeJS.Platform;
}

type Table = Record<string, unknown>;

// smol-toml reads dates as Date objects, which are not tables.
const isTable = (value: unknown): value is Table => isRecord(value) && !(value instanceof Date);

// Only a regular file, and only up to a cap: a FIFO or /dev/zero named by SYSTEM1_CONFIG would otherwise block
// start-up (every surface loads the config synchronously) past every time budget.
const readConfigFile = (file: string) => readRegularFileSync(file, FILE_CAPS.config);

/**
 * Reads the TOML file and the `SYSTEM1_*` variables into settings. It never throws: every problem becomes
 * a ConfigError naming the file (or variable) and the key, and the key keeps its default.
 */
export function loadConfig({ env, readFile = readConfigFile, platform }: LoadOptions): LoadedConfig {
  const errors: ConfigError[] = [];
  const location = locateConfigFile(env, platform);
  const { file, document } = readDocument(location.path, location.explicit, readFile, errors);
  const label = file ?? location.path;

  for (const sectionName of Object.keys(document)) {
    if (!Object.hasOwn(SECTIONS, sectionName) && sectionName !== 'providers') {
      errors.push(
        configError(
          label,
          sectionName,
          `is not a known section (expected ${[...Object.keys(SECTIONS), 'providers'].join(', ')})`,
        ),
      );
    }
  }

  const section = <K extends Record<string, KeySpec>>(name: SectionName, keys: K) =>
    readSection(
      { name, keys, table: tableAt(document, name, label, errors), subTables: SUB_TABLES[name] },
      { file: label, env, errors },
    );
  const gateway = section('gateway', SECTIONS.gateway) as GatewaySettings;
  const routing = section('routing', SECTIONS.routing) as RoutingSettings;
  const skills = section('skills', SECTIONS.skills) as SkillsSettings;
  const router = section('router', SECTIONS.router) as RouterSettings;
  const http = section('http', SECTIONS.http) as HttpSettings;
  const engines = section('engines', SECTIONS.engines) as EnginesSettings;
  const state = checkStateSettings(section('state', SECTIONS.state) as StateSettings, label, env, errors);
  // [decisions] holds only its model tables (read below): this reports any other key written in it.
  section('decisions', SECTIONS.decisions);

  const home = homeOf(env);
  const install = installDir(env);
  gateway.log_file = gateway.log_file && expandHome(gateway.log_file, home);
  routing.min_confidence ??= gateway.min_confidence;
  routing.log_file = expandHome(routing.log_file ?? path.join(install, 'logs', 'routing.jsonl'), home);
  routing.log_dirs = routing.log_dirs.map((dir) => path.resolve(expandHome(dir, home)));
  // Clients start the processes from any folder: a relative module is the config file's neighbour.
  engines.modules = engines.modules.map((module) => path.resolve(path.dirname(label), expandHome(module, home)));
  router.shadow_log = expandHome(router.shadow_log ?? path.join(install, 'logs', 'router-shadow.jsonl'), home);
  const httpTable = ownValue(document, 'http');
  const decisionsTable = ownValue(document, 'decisions');

  return {
    configFile: file,
    installDir: install,
    gateway,
    routing,
    skills,
    router,
    http,
    state,
    engines,
    ...readHttpAccess(isTable(httpTable) ? httpTable : {}, http, label, env, errors),
    decisionModels: readDecisionModels(isTable(decisionsTable) ? decisionsTable : {}, label, errors),
    ...readProviderTables(document, label, errors),
    errors,
  };
}

function readDocument(
  location: string,
  explicit: boolean,
  readFile: (file: string) => string,
  errors: ConfigError[],
): { file: string | null; document: Table } {
  let source: string;
  try {
    source = readFile(location);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { file: null, document: {} };
    const why =
      code === 'ENOENT' ? 'does not exist (named by SYSTEM1_CONFIG)' : `cannot be read (${readFailureReason(error)})`;
    errors.push({ file: location, key: '(file)', message: `${location}: the config file ${why}` });
    return { file: location, document: {} };
  }
  try {
    return { file: location, document: parseToml(source) };
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}` : 'unknown position';
    const reason = error instanceof TomlError ? firstLine(error.message) : 'unreadable TOML';
    errors.push({ file: location, key: '(syntax)', message: `${location}: TOML syntax error at ${where}: ${reason}` });
    return { file: location, document: {} };
  }
}

const firstLine = (message: string) => message.split('\n')[0].replace(/^Invalid TOML document: /, '');

function tableAt(document: Table, name: string, file: string, errors: ConfigError[], shownAs = name): Table {
  const value = ownValue(document, name);
  if (value === undefined) return {};
  if (isTable(value)) return value;
  errors.push(configError(file, shownAs, 'must be a table ([' + shownAs + '])'));
  return {};
}

/** Tables inside a section, read on their own (see readHttpAccess), so not unknown keys of it. */
const SUB_TABLES: Partial<Record<SectionName, readonly string[]>> = {
  http: ['callers', 'oauth'],
  decisions: ['models'],
};

/** One section as written: its name, the keys it takes, its table, and tables inside it read on their own. */
interface SectionText {
  name: string;
  keys: Record<string, KeySpec>;
  table: Table;
  subTables?: readonly string[];
}

/** Where settings come from (the file, then the environment's variables) and where problems go. */
interface SettingSources {
  file: string;
  env: Env;
  errors: ConfigError[];
}

function readSection(
  { name, keys, table, subTables = [] }: SectionText,
  { file, env, errors }: SettingSources,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(table)) {
    if (subTables.includes(key)) continue;
    if (looksSecret(key)) errors.push(secretInFile(file, `${name}.${key}`));
    else if (!Object.hasOwn(keys, key))
      errors.push(configError(file, `${name}.${key}`, `is not a known key of [${name}]`));
  }
  for (const [key, spec] of Object.entries(keys)) {
    values[key] = spec.default;
    if (Object.hasOwn(table, key)) {
      try {
        values[key] = spec.type.fromFile(table[key]);
      } catch (error) {
        errors.push(configError(file, `${name}.${key}`, settingProblem(error)));
      }
    }
    const variable = envName(name, key);
    const raw = env[variable];
    if (raw !== undefined) {
      try {
        values[key] = spec.type.fromEnv(raw);
      } catch (error) {
        errors.push(configError(ENVIRONMENT, variable, settingProblem(error)));
      }
    }
  }
  return values;
}

/** A caller's name as a config table names it: printable, short, no control characters. */
const CALLER_NAME = /^[\x21-\x7e]{1,128}$/;

/**
 * `[http.callers.<name>]` (no variables: the names are the operator's own) and `[http.oauth]` (with
 * SYSTEM1_HTTP_OAUTH_<KEY> variables, for a container's environment). A caller's missing keys are `[http]`'s.
 */
function readHttpAccess(
  httpTable: Table,
  http: HttpSettings,
  file: string,
  env: Env,
  errors: ConfigError[],
): Pick<LoadedConfig, 'httpCallers' | 'httpOAuth'> {
  const httpCallers = keyedMap<HttpCallerSettings>();
  for (const [name, table] of Object.entries(tableAt(httpTable, 'callers', file, errors, 'http.callers'))) {
    const key = `http.callers.${name}`;
    if (!CALLER_NAME.test(name)) {
      errors.push(
        configError(
          file,
          'http.callers',
          `${JSON.stringify(name.slice(0, 40))} is not a caller name ` +
            '(printable characters without spaces, at most 128)',
        ),
      );
      continue;
    }
    if (!isTable(table)) {
      errors.push(configError(file, key, `must be a table ([${key}])`));
      continue;
    }
    const given = readSection({ name: key, keys: HTTP_CALLER_KEYS, table }, { file, env: {}, errors });
    const inherited = Object.fromEntries(
      Object.keys(HTTP_CALLER_KEYS).map((setting) => [
        setting,
        Object.hasOwn(table, setting) ? given[setting] : http[setting as keyof HttpSettings],
      ]),
    );
    httpCallers[name] = inherited as HttpCallerSettings;
  }
  const oauthTable = ownValue(httpTable, 'oauth');
  const oauthVariables = Object.keys(HTTP_OAUTH_KEYS).some((key) => env[envName('http.oauth', key)] !== undefined);
  if (oauthTable === undefined && !oauthVariables) return { httpCallers };
  const httpOAuth = readSection(
    { name: 'http.oauth', keys: HTTP_OAUTH_KEYS, table: tableAt(httpTable, 'oauth', file, errors, 'http.oauth') },
    { file, env, errors },
  ) as HttpOAuthSettings;
  return { httpCallers, httpOAuth };
}

/** What a model alias may be called: what a request's `model` can spell, and never `system1` (the chain's own name). */
const ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const CHAIN_NAME = 'system1';

/** `[decisions.models.<alias>]`: each alias's chain (at least one engine) and its threshold, if any. */
function readDecisionModels(
  decisionsTable: Table,
  file: string,
  errors: ConfigError[],
): Record<string, DecisionModelSettings> {
  const models = keyedMap<DecisionModelSettings>();
  for (const [name, table] of Object.entries(tableAt(decisionsTable, 'models', file, errors, 'decisions.models'))) {
    const key = `decisions.models.${name}`;
    if (!ALIAS_NAME.test(name) || name === CHAIN_NAME) {
      const why = name === CHAIN_NAME ? 'names the chain itself' : 'is not a model name (letters, digits, . _ : -)';
      errors.push(configError(file, 'decisions.models', `${JSON.stringify(name.slice(0, 40))} ${why}`));
      continue;
    }
    if (!isTable(table)) {
      errors.push(configError(file, key, `must be a table ([${key}])`));
      continue;
    }
    const read = readSection({ name: key, keys: DECISION_MODEL_KEYS, table }, { file, env: {}, errors });
    const chain = read.chain as string[];
    if (chain.length === 0) {
      errors.push(configError(file, `${key}.chain`, 'must list at least one engine ("provider" or "provider/model")'));
      continue;
    }
    const minConfidence = read.min_confidence as number | undefined;
    models[name] = { chain, ...(minConfidence !== undefined && { min_confidence: minConfidence }) };
  }
  return models;
}

function readProviderTables(
  document: Table,
  file: string,
  errors: ConfigError[],
): Pick<LoadedConfig, 'providerTables' | 'providerSecrets'> {
  // Keyed by the names the user wrote, which may be `constructor` or `__proto__`.
  const tables = keyedMap<Table>();
  const secrets = keyedMap<string[]>();
  for (const [name, table] of Object.entries(tableAt(document, 'providers', file, errors))) {
    if (!isTable(table)) {
      errors.push(configError(file, `providers.${name}`, `must be a table ([providers.${name}])`));
      continue;
    }
    const kept = keyedMap<unknown>();
    for (const [key, value] of Object.entries(table)) {
      if (looksSecret(key)) (secrets[name] ??= []).push(key);
      else kept[key] = value;
    }
    tables[name] = kept;
  }
  return { providerTables: tables, providerSecrets: secrets };
}

export function providerVariable(provider: string, key: string): string {
  return `SYSTEM1_${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${key.toUpperCase()}`;
}

export function secretInFile(file: string, key: string, variable?: string): ConfigError {
  const where = variable ? ` (${variable})` : '';
  return configError(
    file,
    key,
    `is a secret: secrets are read from environment variables only${where}, remove it from the file`,
  );
}
