import type { AttemptContext, System1Provider } from '../../decisions/registry/provider.interface';
import { DecisionErrorCode, System1ProviderError } from '../../decisions/errors/decision-error';
import { shown } from '../../common/clip';
import { createProvider, readProviderSettings, type SettingProblem } from '../../decisions/registry/provider-settings';
import { System1InputError } from '../../decisions/errors/input-error';
import { isRecord } from '../../common/is-record';
import { EngineHttpClient } from '../http/engine-http.client';
import { FetchEngineHttpClient } from '../http/fetch-engine-http.client';
import type { SystemOneDialect, SystemOneSettings } from '../system-one/systemone-dialect';
import { SystemOneDefinition } from '../system-one/systemone.definition';
import type { DialectProvider } from '../system-one/dialect-provider';

/** What every provider factory takes (dsh-system1's plugin settings), beside the engine's own. */
export interface ProviderFactoryOptions {
  /**
   * The provider's name (dsh-system1's `id`): in results and attempts, and in the engine's own messages.
   * `registerProvider(engine)` registers it under it, and no other name is accepted. Default: the engine's
   * own (`laya`, `typesafe`, `cloudflare`), and any name at `registerProvider(name, engine)`.
   */
  id?: string;
  /** The engine's base URL; default the engine's own. */
  baseURL?: string;
  /** The key itself, for an application that holds it; else read from `apiKeyEnv`. */
  apiKey?: string;
  /** The environment variable the key is read from, at each call. */
  apiKeyEnv?: string;
  /** The model or checkpoint to ask. */
  model?: string;
  /** A `fetch` to send requests with (fixtures, instrumentation); default Node's own HTTP client. */
  fetch?: typeof fetch;
  /** Allow an endpoint that is not this machine (Laya; the hosted engines are remote already). */
  allowRemote?: boolean;
}

/** What a factory adds to the common rules. */
interface FactoryFacts {
  /** The factory's name, for its errors. */
  factory: string;
  /** The variable the key is read from unless `apiKeyEnv` names another: the engine's own name for it. */
  defaultKeyEnv: string;
  /** Options of this factory alone, by the engine setting each becomes. */
  settingOptions?: Readonly<Record<string, string>>;
}

/** The options once checked: the factory's own typed, the engine settings as given. */
type GivenOptions = Pick<ProviderFactoryOptions, 'id' | 'apiKey' | 'apiKeyEnv' | 'fetch'> & Record<string, unknown>;

/** Options that are engine settings, by the setting each becomes: taken where the engine has that setting. */
const SETTING_OPTIONS: Readonly<Record<string, string>> = {
  baseURL: 'endpoint',
  model: 'model',
  allowRemote: 'allow_remote',
};

/** The ids given to factories' engines: `registerProvider` holds an engine to its id (a WeakMap reads no trap). */
const givenIds = new WeakMap<object, string>();

/** The `id` a factory's engine was created with; undefined for an engine created without one, or not by a factory. */
export function givenIdOf(engine: unknown): string | undefined {
  return typeof engine === 'object' && engine !== null ? givenIds.get(engine) : undefined;
}

/**
 * Builds a provider for `registerProvider` from a System One dialect, without a config file: the options
 * become the engine's settings (checked the same way), and an option the factory does not take is refused
 * by name. The key is read at each call from the variable the factory reads, and every message about it
 * names that variable (or the `apiKey` option). A call that names a model is asked of that model
 * (dsh-system1), checked like `options.model`.
 */
export function providerFrom<S extends SystemOneSettings>(
  dialect: SystemOneDialect<S>,
  options: unknown,
  facts: FactoryFacts,
): System1Provider & { readonly name: string } {
  const settingOptions = Object.entries({ ...SETTING_OPTIONS, ...facts.settingOptions }).filter(([, setting]) =>
    Object.hasOwn(dialect.settings, setting),
  );
  const given = checkedOptions(
    options,
    facts.factory,
    settingOptions.map(([option]) => option),
  );
  const { keyVariable, env } = keySource(given.apiKey, given.apiKeyEnv ?? facts.defaultKeyEnv);
  const http = given.fetch ? new FetchEngineHttpClient(given.fetch) : new EngineHttpClient();
  const definition = new SystemOneDefinition(http, { ...dialect, name: given.id ?? dialect.name, keyVariable });
  const optionOf = (setting: string) => settingOptions.find(([, own]) => own === setting)?.[0] ?? setting;
  const chosen = Object.fromEntries(
    settingOptions
      .filter(([option]) => given[option] !== undefined)
      .map(([option, setting]) => [setting, given[option]]),
  );
  const build = (settings: Readonly<Record<string, unknown>>) => {
    const created = createProvider(definition, settings, { env });
    if ('provider' in created) return created.provider;
    throw inputError(definition.name, created.problem, optionOf);
  };
  const checkedSettings = (values: Record<string, unknown>) => {
    const read = readProviderSettings(definition, { chosen: values });
    if (!read.ok) throw inputError(definition.name, read.problems[0], optionOf);
    return read.settings;
  };
  const settings = checkedSettings(chosen);
  const configured = build(settings);
  const engine = Object.hasOwn(definition.settings, 'model')
    ? modelPerCall(definition.name, configured, settings.model, (model) => build(checkedSettings({ ...chosen, model })))
    : (configured as DialectProvider<S>); // named by its definition, as every dialect's engine is
  if (given.id !== undefined) givenIds.set(engine, given.id);
  return engine;
}

/**
 * Where the key comes from, which every message about it names (the variable read, or the option given),
 * and the environment the engine sees: that one entry, read at each call so a rotated key needs no new
 * provider.
 */
function keySource(apiKey: string | undefined, keyEnv: string) {
  const keyVariable = apiKey !== undefined ? 'the apiKey option' : keyEnv;
  const env: Record<string, string | undefined> = Object.defineProperty({}, keyVariable, {
    get: () => apiKey ?? process.env[keyEnv],
    enumerable: true,
  });
  return { keyVariable, env };
}

/**
 * The options as given, refusing any the factory does not take (naming it and those it takes) and any
 * that is not of its kind. Engine settings are checked by their own types afterwards.
 */
function checkedOptions(options: unknown, factory: string, settingOptions: string[]): GivenOptions {
  if (options === undefined) return {};
  if (!isRecord(options)) throw new System1InputError(`the options of ${factory}`, 'must be an object');
  const takes = ['id', ...settingOptions, 'apiKey', 'apiKeyEnv', 'fetch'];
  for (const key of Object.keys(options)) {
    if (takes.includes(key)) continue;
    const named = /^[A-Za-z_$][\w$]*$/.test(key) ? key : shown(key);
    throw new System1InputError(named, `is not an option of ${factory}: it takes ${takes.join(', ')}`);
  }
  const text = (key: string, problem: string) => {
    const value = options[key];
    if (value !== undefined && !(typeof value === 'string' && value.trim() !== '')) {
      throw new System1InputError(key, problem);
    }
  };
  text('id', 'must be a non-empty string');
  text('apiKey', 'must be a non-empty string (or leave it out to read the key from apiKeyEnv)');
  text('apiKeyEnv', 'must be the name of an environment variable');
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    throw new System1InputError('fetch', 'must be a fetch function');
  // A copy: changing the object afterwards changes no engine.
  const given: GivenOptions = { ...options };
  return given;
}

/** A settings problem in the library's words: the option it came from, and what is wrong with it. */
function inputError(name: string, problem: SettingProblem, optionOf: (setting: string) => string): unknown {
  switch (problem.kind) {
    case 'unknown':
      return new System1InputError(optionOf(problem.key), `is not a setting of ${name}`);
    case 'invalid':
    case 'refused':
      return new System1InputError(optionOf(problem.key), problem.message);
    case 'failed':
      return problem.error;
  }
}

/**
 * The configured engine, and for a call that names another model the same engine built for that model: its
 * capabilities are that model's (Jev 1.14 takes boxes, jev-latest does not) and the request carries it.
 * Built at each such call, so a caller's model names are never kept.
 */
function modelPerCall(
  name: string,
  configured: System1Provider,
  configuredModel: unknown,
  withModel: (model: string) => System1Provider,
): System1Provider & { readonly name: string } {
  const engineFor = (model: string | undefined): System1Provider =>
    model === undefined || model === configuredModel ? configured : withModel(model);
  return {
    name,
    capabilities: () => configured.capabilities(),
    modelCapabilities: (model) => {
      try {
        return engineFor(model).capabilities();
      } catch {
        return configured.capabilities(); // evaluate() names the problem
      }
    },
    evaluate: (request, context) => {
      let engine: System1Provider;
      try {
        engine = engineFor(request.model);
      } catch (error) {
        const problem = error instanceof Error ? error.message : 'is not usable';
        return Promise.reject(
          new System1ProviderError(
            DecisionErrorCode.Unavailable,
            `${name} cannot ask model ${shown(request.model)}: ${problem}`,
          ),
        );
      }
      return engine.evaluate(request, context);
    },
    ...(configured.health && { health: (context: AttemptContext) => configured.health!(context) }),
  };
}
