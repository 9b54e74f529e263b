import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import type { HealthReport } from '../decisions/pipeline/health.service';
import { buildCoreGraph } from '../system1/core-graph';
import type { EngineUnderTest } from './evaluate-live';
import { FeatureReader } from './feature-reader.service';

export interface EngineUnderTestSetup {
  engine: EngineUnderTest;
  /** Why it cannot be asked now (config, pause, its health probe), or null when it is up. */
  whyNotReady: () => Promise<string | null>;
}

/**
 * The engine `evaluate --live` asks, through the route hook's own pipeline: the decision core built as the
 * hook builds it (buildCoreGraph) and the hook's FeatureReader over it, with the chain set to that one
 * provider, so a failure is the engine's and never another engine's answer. Cooldown is off: a timeout
 * would otherwise skip the engine for `cooldown_s` and count the prompts after it as its failures.
 */
export function engineUnderTest(config: LoadedConfig, env: Env, provider: string): EngineUnderTestSetup {
  const alone: LoadedConfig = { ...config, gateway: { ...config.gateway, provider, fallback: [], cooldown_s: 0 } };
  const core = buildCoreGraph(alone, env);
  const model = core.decisions.resolveCapabilities({ provider })?.model;
  return {
    engine: {
      provider,
      model: typeof model === 'string' && model !== '' ? model : null,
      reader: new FeatureReader(alone, core.decisions),
      budgetMs: config.gateway.timeout_s * 1000,
    },
    whyNotReady: async () => {
      // Named first: a provider given on the command line that does not exist is not a config file's problem.
      const resolved = core.decisions.resolve({ provider });
      return 'problem' in resolved ? resolved.problem : whyNotReady(provider, await core.health.health());
    },
  };
}

function whyNotReady(provider: string, health: HealthReport): string | null {
  if (health.config_errors.length > 0)
    return `the configuration is broken: ${health.config_errors.map((e) => e.message).join('; ')}`;
  if (health.paused) return 'System-1 is paused (system1 toggle on resumes it)';
  const probe = health.providers.find((p) => p.name === provider);
  if (!probe?.ok) return `${provider} is not answering: ${probe?.detail ?? 'no health probe result'}`;
  return null;
}
