import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { CooldownService, type CooldownStore } from '../decisions/pools/cooldown.service';
import { COOLDOWN, CONFIG, CORE_WIRING, PROVIDER_DEFINITIONS, ENV } from './core-wiring';
import { DecisionCache } from '../decisions/pipeline/decision-cache.service';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { DecisionGate } from '../decisions/pipeline/decision-gate';
import { EngineAttempts } from '../decisions/pipeline/engine-attempts';
import { ReplicaRunner } from '../decisions/pools/replica-runner';
import { ReplicaStates } from '../decisions/pools/replica-states';
import { EngineResolver } from '../decisions/registry/engine-resolver';
import { EndpointLoad } from '../decisions/pools/endpoint-load.service';
import { Hedging } from '../decisions/pools/hedging.service';
import { HealthService } from '../decisions/pipeline/health.service';
import { PauseState } from '../decisions/pipeline/pause-state.service';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { resolveWiring, supply } from './resolve-wiring';
import { RuntimeProviders } from '../decisions/registry/runtime-providers';
import { BUILT_IN_PROVIDERS } from '../providers/built-in';
import { EngineHttpClient } from '../providers/http/engine-http.client';
import { teamEngines } from './team-engines';

/** The decision core without Nest, as `System1Module` builds it: both resolve `CORE_WIRING`. */
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
  gate: DecisionGate;
  engines: EngineResolver;
  replicas: ReplicaRunner;
  replicaStates: ReplicaStates;
  attempts: EngineAttempts;
  decisions: DecisionService;
  health: HealthService;
}

/**
 * The core without Nest's container, for the hooks: Claude Code waits on the hook before every prompt, and
 * the container (with @nestjs/core's module tree) was most of the hook's start-up. The engines are those a
 * server sees without a team's own Nest module: the built-ins and the config's `[engines] modules`.
 */
export function buildCoreGraph(config: LoadedConfig, env: Env, cooldownStore?: CooldownStore): CoreGraph {
  const http = new EngineHttpClient();
  const definitions = [...BUILT_IN_PROVIDERS.map((Definition) => new Definition(http)), ...teamEngines(config, http)];
  const core = resolveWiring(CORE_WIRING, [
    supply(CONFIG, config),
    supply(ENV, env),
    supply(PROVIDER_DEFINITIONS, { all: () => definitions }),
    ...(cooldownStore ? [supply(COOLDOWN, cooldownStore)] : []),
  ]);
  return {
    registry: core.get(ProviderRegistry),
    calibration: core.get(CalibrationService),
    configStatus: core.get(ConfigStatus),
    pause: core.get(PauseState),
    cooldown: core.get(CooldownService),
    load: core.get(EndpointLoad),
    hedging: core.get(Hedging),
    cache: core.get(DecisionCache),
    runtime: core.get(RuntimeProviders),
    gate: core.get(DecisionGate),
    engines: core.get(EngineResolver),
    replicas: core.get(ReplicaRunner),
    replicaStates: core.get(ReplicaStates),
    attempts: core.get(EngineAttempts),
    decisions: core.get(DecisionService),
    health: core.get(HealthService),
  };
}
