import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { CallerModels } from '../decisions/callers/caller-models.service';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { COOLDOWN_STORE, CooldownService, type CooldownStore } from '../decisions/pools/cooldown.service';
import { DecisionCache } from '../decisions/pipeline/decision-cache.service';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { DecisionGate } from '../decisions/pipeline/decision-gate';
import { EngineAttempts } from '../decisions/pipeline/engine-attempts';
import { ReplicaRunner } from '../decisions/pools/replica-runner';
import { ReplicaStates } from '../decisions/pools/replica-states';
import { EngineResolver } from '../decisions/registry/engine-resolver';
import { EndpointLoad } from '../decisions/pools/endpoint-load.service';
import { HealthService } from '../decisions/pipeline/health.service';
import { Hedging } from '../decisions/pools/hedging.service';
import { PauseState } from '../decisions/pipeline/pause-state.service';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { type ProviderDefinitions, SYSTEM1_PROVIDERS } from '../decisions/registry/providers.token';
import { RuntimeProviders } from '../decisions/registry/runtime-providers';
import { SHARED_STATE, type SharedState } from '../state/shared-state';
import { typedToken, wire } from './wiring';

/** What the process that starts the core supplies: its config and environment, its engines, where cooldowns go. */
export const CONFIG = typedToken<LoadedConfig>(system1Config.KEY);
export const ENV = typedToken<Env>(PROCESS_ENV);
export const PROVIDER_DEFINITIONS = typedToken<ProviderDefinitions>(SYSTEM1_PROVIDERS);
/** Optional: in memory unless given (the routing hook, a process per prompt, keeps a file). */
export const COOLDOWN = typedToken<CooldownStore>(COOLDOWN_STORE, { optional: true });
/** Optional: what the deployment's processes share (`[state] url`); in-process unless given. */
export const SHARED = typedToken<SharedState>(SHARED_STATE, { optional: true });

/**
 * The decision core, one line per service with what its constructor takes: `System1Module` gives it to Nest
 * and the hooks resolve it without Nest (`buildCoreGraph`), so a new constructor argument is one edit here.
 */
export const CORE_WIRING = [
  wire(ProviderRegistry, PROVIDER_DEFINITIONS, CONFIG, ENV),
  wire(CalibrationService, CONFIG, SHARED),
  wire(ConfigStatus, CONFIG, ProviderRegistry),
  wire(PauseState, CONFIG, SHARED),
  wire(CooldownService, CONFIG, COOLDOWN, SHARED),
  wire(EndpointLoad),
  wire(Hedging, CONFIG, EndpointLoad),
  wire(DecisionCache, CONFIG, SHARED),
  wire(RuntimeProviders),
  wire(DecisionGate, RuntimeProviders, ConfigStatus, PauseState),
  wire(EngineResolver, ProviderRegistry, RuntimeProviders),
  wire(ReplicaRunner, CooldownService, EndpointLoad, Hedging),
  wire(ReplicaStates, CooldownService, EndpointLoad),
  wire(EngineAttempts, RuntimeProviders, CalibrationService),
  wire(DecisionService, CONFIG, DecisionGate, EngineResolver, ReplicaRunner, EngineAttempts, DecisionCache),
  wire(HealthService, CONFIG, ProviderRegistry, ConfigStatus, PauseState, CooldownService, ReplicaStates),
];

/** The servers' only: the callers of the MCP tools (the hooks have none to hold). */
export const SERVER_WIRING = [wire(CallerModels, CONFIG, DecisionService, ProviderRegistry)];
