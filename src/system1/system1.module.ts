import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import { System1ConfigModule } from '../config/config.module';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { CallerModels } from '../decisions/caller-models.service';
import { ConfigStatus } from '../decisions/config-status.service';
import { COOLDOWN_STORE, CooldownService, type CooldownStore } from '../decisions/cooldown.service';
import { DecisionCache } from '../decisions/decision-cache.service';
import { DecisionService } from '../decisions/decision.service';
import { EndpointLoad } from '../decisions/endpoint-load.service';
import { Hedging } from '../decisions/hedging.service';
import { HealthService } from '../decisions/health.service';
import { PauseState } from '../decisions/pause-state.service';
import { RuntimeProviders } from '../decisions/runtime-providers';
import { ProvidersModule } from '../providers/providers.module';

export interface System1ModuleOptions {
  /** A config already loaded (an embedding application's); default: the user's, read at start-up. */
  config?: LoadedConfig;
  /** The environment read for engine keys with `config`; default `process.env`. */
  env?: Env;
  /** Where cooldowns are kept; default in memory (the routing hook, a process per prompt, keeps a file). */
  cooldownStore?: CooldownStore;
}

/** A config given by the caller, in place of the process-wide one. */
@Global()
@Module({})
class GivenConfigModule {
  static with(config: LoadedConfig, env: Env): DynamicModule {
    const providers = [
      { provide: system1Config.KEY, useValue: config },
      { provide: PROCESS_ENV, useValue: env },
    ];
    return { module: GivenConfigModule, providers, exports: providers.map((p) => p.provide) };
  }
}

/** The decision core's services, one list for every root that wires it. */
export const CORE_SERVICES = [CalibrationService, ConfigStatus, PauseState, CooldownService, EndpointLoad, Hedging, DecisionCache, RuntimeProviders, DecisionService, HealthService];

/**
 * The decision core as one Nest module: the providers (built-ins and any `@System1Engine()` class in the
 * application), the one pipeline, health and calibration. The MCP root, the CLI root and `createSystem1`
 * import it; feature modules inject its services, since it is global.
 *
 * @example
 * ```ts
 * @Module({ imports: [System1Module.forRoot(), MyEngineModule] })
 * export class AppModule {}
 * ```
 */
@Module({})
export class System1Module {
  static forRoot(options: System1ModuleOptions = {}): DynamicModule {
    const config = options.config ? GivenConfigModule.with(options.config, options.env ?? process.env) : System1ConfigModule;
    const store: Provider[] = options.cooldownStore ? [{ provide: COOLDOWN_STORE, useValue: options.cooldownStore }] : [];
    return {
      module: System1Module,
      global: true,
      imports: [config, ProvidersModule],
      // CallerModels serves the MCP tools' callers only: the hooks' hand-built core has no callers to hold.
      providers: [...store, ...CORE_SERVICES, CallerModels],
      exports: [ProvidersModule, ...CORE_SERVICES, CallerModels],
    };
  }
}
