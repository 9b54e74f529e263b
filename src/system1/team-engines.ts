import { type ConfigError, configError, ENVIRONMENT } from '../config/config-error';
import type { LoadedConfig } from '../config/config.loader';
import type { ProviderDefinition } from '../decisions/registry/provider.interface';
import type { EngineHttpClient } from '../providers/http/engine-http.client';

const KEY = 'engines.modules';

/**
 * Per config read (keyed by its section, which a copy of the config with another chain shares): its modules
 * are loaded, and their problems recorded, once.
 */
const loaded = new WeakMap<LoadedConfig['engines'], ProviderDefinition[]>();

/**
 * A team's engines, named by `[engines] modules`: each a CommonJS module exporting `engines`, a list of
 * provider definition classes, built as the built-ins are (with the shared HTTP client). Every process that
 * reads the config gets them this way (the servers, the library, the hooks). Nothing is loaded unless the key
 * is set, so the hooks' start is unchanged without it. A module that cannot be used is a config error: every
 * decision then answers `config_error` naming it, as for any other broken setting.
 */
export function teamEngines(config: LoadedConfig, http: EngineHttpClient): ProviderDefinition[] {
  const modules = config.engines.modules;
  if (modules.length === 0) return [];
  let definitions = loaded.get(config.engines);
  if (!definitions) {
    const problems: ConfigError[] = [];
    definitions = modules.flatMap((module) => enginesOf(module, config, http, problems));
    config.errors.push(...problems);
    loaded.set(config.engines, definitions);
  }
  return definitions;
}

function enginesOf(module: string, config: LoadedConfig, http: EngineHttpClient, problems: ConfigError[]) {
  const problem = (text: string): [] => {
    problems.push(configError(config.configFile ?? ENVIRONMENT, KEY, `${JSON.stringify(module)} ${text}`));
    return [];
  };
  let engines: unknown;
  try {
    // An absolute path (the loader resolved it), required at run time: a team's module is not in the bundle.
    engines = (require(module) as { engines?: unknown }).engines;
  } catch (error) {
    // The first line says why; Node's "require stack" after it is the gateway's own files.
    return problem(`could not be loaded: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  }
  if (!Array.isArray(engines) || engines.length === 0) {
    return problem('exports no `engines` list of provider definition classes');
  }
  return engines.flatMap((Definition: unknown, index): ProviderDefinition[] => {
    if (typeof Definition !== 'function') return problem(`engines[${index}] is not a class`);
    try {
      const definition = new (Definition as new (http: EngineHttpClient) => ProviderDefinition)(http);
      if (typeof definition.name === 'string' && typeof definition.create === 'function') return [definition];
      return problem(`engines[${index}] is not a provider definition (a \`name\` and a \`create\` method)`);
    } catch (error) {
      return problem(`engines[${index}] could not be built: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
