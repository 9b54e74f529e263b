import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ownValue } from '../../common/own-keys';
import { ConfigError, configError, ENVIRONMENT } from '../../config/config-error';
import { type LoadedConfig, providerVariable, secretInFile } from '../../config/config.loader';
import type { Env } from '../../config/paths';
import { settingProblem } from '../../config/setting-types';
import { endpointsFromEnv, type EndpointSpec, type Pool, readEndpoints, singleEngine } from './engine-pool';
import { ProviderDefinition, System1Provider } from './provider.interface';
import { createProvider, readProviderSettings, type SettingProblem } from './provider-settings';
import type { ProviderDefinitions } from './providers.token';

export type ChainRole = 'primary' | 'fallback';

export interface ChainMember {
  name: string;
  role: ChainRole;
  /** null when the provider is unknown or its settings are unusable (see the config errors). */
  provider: System1Provider | null;
  /** Its engines: the one, or each replica of its `endpoints` (the first is `provider`); null with `provider`. */
  pool: Pool | null;
}

/** A provider configured by name: its engines (null when unusable), and the config errors that stop it. */
export interface Configured {
  provider: System1Provider | null;
  pool: Pool | null;
  errors: ConfigError[];
  problem: string;
}

interface Built {
  chain: ChainMember[];
  errors: ConfigError[];
}

/** Models a caller chose that are kept configured, and the bytes their keys may take. */
const MODELS_KEPT = 64;
const MODEL_KEYS_BYTES = 256 * 1024;

/** Where a file-less setup's values come from, for error messages. */
const DEFAULTS = '(defaults)';

/**
 * Turns the config into the provider chain: finds each named provider among the registered definitions,
 * reads its settings from `[providers.<name>]` and `SYSTEM1_<NAME>_<KEY>`, and lets it validate them.
 * A table may set `type = "<definition>"` to run a second, differently configured instance under its own
 * name (two Ollama models, a slow and a fast mock).
 */
@Injectable()
export class ProviderRegistry {
  private built?: Built;
  // Keyed by a caller's model name: bounded in count and bytes, so distinct names cannot fill the heap.
  private readonly withModel = new LRUCache<string, Pool>({
    max: MODELS_KEPT,
    maxSize: MODEL_KEYS_BYTES,
    sizeCalculation: (_pool, key) => Buffer.byteLength(key) + 1,
  });
  private readonly byName = new Map<string, Configured>();
  /** Where each configured provider's engines are, as its settings say (see {@link endpointsOf}). */
  private readonly endpointUrls = new Map<string, readonly string[]>();

  constructor(
    private readonly definitions: ProviderDefinitions,
    private readonly config: LoadedConfig,
    private readonly env: Env,
  ) {}

  chain(): ChainMember[] {
    return this.build().chain;
  }

  /** Problems with provider names and settings (the file's own problems are in the loaded config). */
  configErrors(): ConfigError[] {
    return this.build().errors;
  }

  /**
   * A provider by name, configured like the chain's (for commands such as calibrate that pick one), with
   * the config errors that stop it from working.
   */
  instance(name: string): Configured {
    const member = this.chain().find((candidate) => candidate.name === name);
    if (member?.pool) return { provider: member.pool[0].provider, pool: member.pool, errors: [], problem: '' };
    let built = this.byName.get(name);
    if (!built) {
      const errors: ConfigError[] = [];
      const pool = this.configure(name, { file: ENVIRONMENT, key: '--provider' }, errors);
      // Built once, like the chain: a call naming it must not build a new provider each time.
      this.byName.set(
        name,
        (built = { provider: pool?.[0].provider ?? null, pool, errors, problem: problemOf(name, errors) }),
      );
    }
    return built;
  }

  /** Whether `name` can be built: the name of a definition, or of a table in the config. */
  knows(name: string): boolean {
    return (
      this.definitions.all().some((definition) => definition.name === name) ||
      Object.hasOwn(this.config.providerTables, name)
    );
  }

  /**
   * A provider configured like {@link instance} but asking another model: `model` replaces the `model`
   * setting (on every replica of a pool). Null when the provider is unusable or serves one model only
   * ({@link unusable} says why).
   */
  instanceWithModel(name: string, model: string): Pool | null {
    const key = JSON.stringify([name, model]);
    const kept = this.withModel.get(key);
    if (kept) return kept;
    const pool = this.configure(name, { file: ENVIRONMENT, key: 'model' }, [], { overrides: { model } });
    // Only providers are kept: a failure costs the caller that asked, and cannot grow the cache.
    if (pool) this.withModel.set(key, pool);
    return pool;
  }

  /**
   * Why `name` (asked for `model`, when given) cannot run, for a caller: it names keys and variables but no
   * config file (a caller of a shared server must not learn the operator's paths) and not the model.
   */
  unusable(name: string, model?: string): string {
    const { type = name } = ownValue(this.config.providerTables, name) ?? {};
    const definition = this.definitions.all().find((candidate) => candidate.name === type);
    const { provider, errors } = this.instance(name);
    if (!provider) return errors.map(withoutFile).join('; ') || `${name} cannot be configured`;
    if (model !== undefined && definition && !Object.hasOwn(definition.settings, 'model'))
      return `${name} runs one model only (it has no model setting)`;
    return `${name} cannot run the model asked (its model setting refused it)`;
  }

  /**
   * The URLs a provider's engines are reached at: each replica of its `endpoints`, else its `endpoint` setting
   * (none for an engine without one). A server checks them so that it never names itself as its own engine.
   */
  endpointsOf(name: string): readonly string[] {
    this.instance(name);
    return this.endpointUrls.get(name) ?? [];
  }

  /** The engines among `names` that are placeholders (`System1Provider.placeholder`), in their order. */
  placeholders(names: readonly string[]): string[] {
    return names.filter((name) => this.instance(name).provider?.placeholder === true);
  }

  available(): ProviderDefinition[] {
    return [...this.definitions.all()].sort((a, b) => a.name.localeCompare(b.name));
  }

  private build(): Built {
    if (this.built) return this.built;
    const errors: ConfigError[] = [];
    const file = this.config.configFile ?? DEFAULTS;
    const { provider, fallback } = this.config.gateway;
    const source = (variable: string, key: string) =>
      this.env[variable] !== undefined ? { file: ENVIRONMENT, key: variable } : { file, key };

    const configured = new Map<string, Pool | null>();
    const configure = (name: string, origin: { file: string; key: string }) => {
      if (!configured.has(name)) configured.set(name, this.configure(name, origin, errors));
      return configured.get(name) ?? null;
    };
    const member = (name: string, role: ChainRole, pool: Pool | null): ChainMember => ({
      name,
      role,
      provider: pool?.[0].provider ?? null,
      pool,
    });

    const chain: ChainMember[] = [
      member(provider, 'primary', configure(provider, source('SYSTEM1_PROVIDER', 'gateway.provider'))),
      ...fallback.map((name) =>
        member(name, 'fallback', configure(name, source('SYSTEM1_FALLBACK', 'gateway.fallback'))),
      ),
    ];
    // Tables for providers outside the chain are still read, so a typo or a bad value surfaces before it is
    // needed; but they are not built, since a provider that does not run needs no required setting.
    for (const name of Object.keys(this.config.providerTables)) {
      if (!configured.has(name)) this.configure(name, { file, key: `providers.${name}` }, errors, { build: false });
    }

    this.built = { chain, errors };
    return this.built;
  }

  private configure(
    name: string,
    origin: { file: string; key: string },
    errors: ConfigError[],
    { build = true, overrides = {} }: { build?: boolean; overrides?: Record<string, unknown> } = {},
  ): Pool | null {
    const file = this.config.configFile ?? DEFAULTS;
    // Names and keys are the user's: `constructor` must find nothing here, not Object.prototype's member.
    const { type: typeName = name, ...written } = ownValue(this.config.providerTables, name) ?? {};
    if (typeof typeName !== 'string') {
      errors.push(configError(file, `providers.${name}.type`, 'must be the name of a provider definition'));
      return null;
    }
    const definition = this.definitions.all().find((candidate) => candidate.name === typeName);
    for (const key of ownValue(this.config.providerSecrets, name) ?? []) {
      // Whatever the name (`api_key`, `api_token`, `token`), a credential in a provider's table is its key.
      const variable = definition?.keyVariable ?? (key === 'api_key' ? providerVariable(name, key) : undefined);
      errors.push(secretInFile(file, `providers.${name}.${key}`, variable));
    }
    if (!definition) {
      const known = this.available()
        .map((d) => d.name)
        .join(', ');
      errors.push(
        configError(
          origin.file,
          origin.key,
          `names an unknown provider ${JSON.stringify(typeName)} (available: ${known})`,
        ),
      );
      return null;
    }

    let usable = true;
    const fail = (errorFile: string, key: string, problem: string) => {
      errors.push(configError(errorFile, key, problem));
      usable = false;
    };
    const { table, endpoints } = this.poolOf(name, definition, written, fail);
    const read = readProviderSettings(definition, {
      file: table,
      env: { values: this.env, variable: (key) => providerVariable(name, key) },
      chosen: overrides,
    });
    if (!read.ok) {
      for (const problem of read.problems) errors.push(this.configProblem(name, definition, origin, problem));
      return null;
    }
    const values = read.settings;
    const single = typeof values.endpoint === 'string' ? [values.endpoint] : [];
    this.endpointUrls.set(name, endpoints?.map((endpoint) => endpoint.url) ?? single);
    if (!usable || !build) return null;

    // One engine per endpoint of a pool, each with the same settings and key but its own `endpoint`.
    const replicas = endpoints ?? [undefined];
    const pool = replicas.map((endpoint, index) => {
      const key = endpoint ? `providers.${name}.endpoints[${index}]` : undefined;
      const settings = endpoint ? { ...values, endpoint: endpoint.url } : values;
      const created = createProvider(definition, settings, { env: this.env });
      if ('problem' in created) {
        errors.push(this.configProblem(name, definition, origin, created.problem, key));
        return null;
      }
      return { url: endpoint?.url ?? '', weight: endpoint?.weight ?? 1, provider: created.provider };
    });
    if (pool.some((replica) => replica === null)) return null;
    return endpoints === undefined ? singleEngine(pool[0]!.provider) : (pool as Pool);
  }

  /**
   * A table's `endpoints` (or `SYSTEM1_<NAME>_ENDPOINTS`), read apart from the engine's own settings: the pool
   * is the gateway's, and any engine with an `endpoint` setting can have one.
   */
  private poolOf(
    name: string,
    definition: ProviderDefinition,
    written: Record<string, unknown>,
    fail: (file: string, key: string, problem: string) => void,
  ): { table: Record<string, unknown>; endpoints?: EndpointSpec[] } {
    // A team's engine with an `endpoints` setting of its own keeps it.
    if (Object.hasOwn(definition.settings, 'endpoints')) return { table: written };
    const { endpoints: raw, ...table } = written;
    const variable = providerVariable(name, 'endpoints');
    const fromEnv = this.env[variable];
    if (raw === undefined && fromEnv === undefined) return { table };
    const file = fromEnv !== undefined ? ENVIRONMENT : (this.config.configFile ?? DEFAULTS);
    const key = fromEnv !== undefined ? variable : `providers.${name}.endpoints`;
    if (!Object.hasOwn(definition.settings, 'endpoint')) {
      fail(file, key, `provider ${definition.name} has no endpoint setting, so it cannot have a pool of endpoints`);
      return { table };
    }
    if (Object.hasOwn(table, 'endpoint') || this.env[providerVariable(name, 'endpoint')] !== undefined) {
      fail(file, key, 'is set beside endpoint: set one of them (endpoints lists every replica)');
      return { table };
    }
    try {
      return {
        table,
        endpoints: (fromEnv !== undefined ? endpointsFromEnv(fromEnv) : readEndpoints(raw)).map((spec) => ({
          ...spec,
          url: this.checkedEndpoint(definition, spec.url),
        })),
      };
    } catch (error) {
      fail(file, key, settingProblem(error));
      return { table };
    }
  }

  /** An endpoint of a pool held to the engine's own `endpoint` setting type. */
  private checkedEndpoint(definition: ProviderDefinition, url: string): string {
    return String(definition.settings.endpoint.type.fromFile(url));
  }

  /** A settings problem as a config error naming where the value was written. */
  private configProblem(
    name: string,
    definition: ProviderDefinition,
    origin: { file: string; key: string },
    problem: SettingProblem,
    endpointKey?: string,
  ): ConfigError {
    const file = this.config.configFile ?? DEFAULTS;
    const where = `providers.${name}`;
    switch (problem.kind) {
      case 'unknown': {
        if (problem.source === 'file') {
          const settings = Object.keys(definition.settings).join(', ') || 'none';
          const words = `is not a setting of provider ${definition.name} (settings: ${settings})`;
          return configError(file, `${where}.${problem.key}`, words);
        }
        const chosen = JSON.stringify(problem.value);
        return configError(origin.file, where, `has no ${problem.key} setting, so ${chosen} cannot be chosen`);
      }
      case 'invalid': {
        if (problem.source === 'env') return configError(ENVIRONMENT, problem.variable, problem.message);
        const written = problem.source === 'chosen' ? origin.file : file;
        return configError(written, `${where}.${problem.key}`, problem.message);
      }
      case 'refused': {
        // A bad endpoint of a pool is named by its place in the list.
        const key = problem.key === 'endpoint' && endpointKey ? endpointKey : `${where}.${problem.key}`;
        return configError(file, key, problem.message);
      }
      case 'failed': {
        const kind = problem.error instanceof Error ? problem.error.name : 'error';
        return configError(file, where, `cannot be configured (${kind})`);
      }
    }
  }
}

/** A config error's sentence without the file it names. */
function withoutFile({ file, message }: ConfigError): string {
  return message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}

/** The config errors that stop a provider, in one line. */
function problemOf(name: string, errors: ConfigError[]): string {
  return errors.map((error) => error.message).join('; ') || `${name} cannot be configured`;
}
