import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { ConfigStatus } from '../decisions/config-status.service';
import { CooldownService, type CooldownStore } from '../decisions/cooldown.service';
import { DecisionCache } from '../decisions/decision-cache.service';
import { DecisionService } from '../decisions/decision.service';
import { EndpointLoad } from '../decisions/endpoint-load.service';
import { Hedging } from '../decisions/hedging.service';
import { HealthService } from '../decisions/health.service';
import { PauseState } from '../decisions/pause-state.service';
import { ProviderRegistry } from '../decisions/provider-registry.service';
import { RuntimeProviders } from '../decisions/runtime-providers';
import { BUILT_IN_PROVIDERS } from '../providers/built-in';
import { EngineHttpClient } from '../providers/http/engine-http.client';

/** The decision core built by hand, as `System1Module` builds it (a test holds the two to the same constructors). */
export interface CoreGraph {
  registry: ProviderRegistry;
  calibration: CalibrationService;
  configStatus: ConfigStatus;
  pause: PauseState;
  cooldown: CooldownService;
  load: EndpointLoad;
  hedging: Hedging;
  cache: DecisionCache;
  runtime: RuntimeProviders;
  decisions: DecisionService;
  health: HealthService;
}

/**
 * The core without Nest's container, for the hooks: Claude Code waits on the hook before every prompt, and
 * the container (with @nestjs/core's module tree) was most of the hook's start-up.
 */
export function buildCoreGraph(config: LoadedConfig, env: Env, cooldownStore?: CooldownStore): CoreGraph {
  const http = new EngineHttpClient();
  const definitions = BUILT_IN_PROVIDERS.map((Definition) => new Definition(http));
  const registry = new ProviderRegistry({ all: () => definitions }, config, env);
  const calibration = new CalibrationService(config);
  const configStatus = new ConfigStatus(config, registry);
  const pause = new PauseState(config);
  const cooldown = new CooldownService(config, cooldownStore);
  const runtime = new RuntimeProviders();
  const load = new EndpointLoad();
  const hedging = new Hedging(config, load);
  const cache = new DecisionCache(config);
  const decisions = new DecisionService(config, registry, runtime, calibration, configStatus, pause, cooldown, load, hedging, cache);
  const health = new HealthService(config, registry, configStatus, pause, cooldown, load);
  return { registry, calibration, configStatus, pause, cooldown, load, hedging, cache, runtime, decisions, health };
}
