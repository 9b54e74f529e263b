import type { AttemptContext, ProviderDefinition, System1Provider } from '../../decisions/provider.interface';
import { DecisionErrorCode, System1ProviderError } from '../../decisions/decision-error';
import { shown } from '../../common/clip';
import { createProvider, readProviderSettings, type SettingProblem } from '../../decisions/provider-settings';
import { System1InputError } from '../../decisions/input-error';
import { EngineHttpClient } from '../http/engine-http.client';
import { FetchEngineHttpClient } from '../http/fetch-engine-http.client';

/** What every provider factory takes (dsh-system1's plugin settings), beside the engine's own. */
export interface ProviderFactoryOptions {
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
  /** Allow an endpoint that is not this machine (hosted engines allow it already). */
  allowRemote?: boolean;
}

/**
 * Builds a provider for `registerProvider` from its definition, without a config file: the options become
 * the definition's settings (checked the same way), and the key reaches it as the variable it reads. A
 * call that names a model is asked of that model (dsh-system1), checked like `options.model`.
 */
export function providerFrom(
  Definition: new (http: EngineHttpClient) => ProviderDefinition,
  options: ProviderFactoryOptions,
  { defaultKeyEnv, extra = {} }: { defaultKeyEnv: string; extra?: Record<string, unknown> },
): System1Provider {
  const definition = new Definition(options.fetch ? new FetchEngineHttpClient(options.fetch) : new EngineHttpClient());
  const given: Record<string, unknown> = {
    ...(options.baseURL !== undefined && { endpoint: options.baseURL }),
    ...(options.model !== undefined && { model: options.model }),
    ...(options.allowRemote !== undefined && { allow_remote: options.allowRemote }),
    ...extra,
  };
  const keyEnv = options.apiKeyEnv ?? defaultKeyEnv;
  const env = new Proxy(
    {},
    {
      // Read at each call, so a rotated key needs no new provider.
      get: (_target, name) => (name === definition.keyVariable ? (options.apiKey ?? process.env[keyEnv]) : undefined),
    },
  );
  const build = (settings: Readonly<Record<string, unknown>>) => {
    const created = createProvider(definition, settings, { env });
    if ('provider' in created) return created.provider;
    throw inputError(definition, created.problem);
  };
  const settings = checkedSettings(definition, given);
  const configured = build(settings);
  if (!Object.hasOwn(definition.settings, 'model')) return configured;
  const withModel = (model: string) => build(checkedSettings(definition, { ...given, model }));
  return modelPerCall(definition, configured, settings.model, withModel);
}

/** The definition's settings with `chosen` over its defaults, each parsed by its type; else the first problem. */
function checkedSettings(definition: ProviderDefinition, chosen: Record<string, unknown>) {
  const read = readProviderSettings(definition, { chosen });
  if (!read.ok) throw inputError(definition, read.problems[0]);
  return read.settings;
}

/** A settings problem in the library's words: the option's key, and what is wrong with it. */
function inputError(definition: ProviderDefinition, problem: SettingProblem): unknown {
  switch (problem.kind) {
    case 'unknown':
      return new System1InputError(problem.key, `is not a setting of ${definition.name}`);
    case 'invalid':
    case 'refused':
      return new System1InputError(problem.key, problem.message);
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
  definition: ProviderDefinition,
  configured: System1Provider,
  configuredModel: unknown,
  withModel: (model: string) => System1Provider,
): System1Provider {
  const engineFor = (model: string | undefined): System1Provider =>
    model === undefined || model === configuredModel ? configured : withModel(model);
  return {
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
            `${definition.name} cannot ask model ${shown(request.model)}: ${problem}`,
          ),
        );
      }
      return engine.evaluate(request, context);
    },
    ...(configured.health && { health: (context: AttemptContext) => configured.health!(context) }),
  };
}
