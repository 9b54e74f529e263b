import { DynamicModule, Global, Logger, Module, Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { LoadedConfig } from '../config/config.loader';
import { System1ConfigModule } from '../config/config.module';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { COOLDOWN_STORE, type CooldownStore } from '../decisions/pools/cooldown.service';
import { openSharedState } from '../state/open-state';
import { SHARED_STATE } from '../state/shared-state';
import { CORE_WIRING, SERVER_WIRING } from './core-wiring';
import {
  providerDefinitionsToken,
  type ProviderDefinitions,
  SYSTEM1_PROVIDERS,
} from '../decisions/registry/providers.token';
import { nestProvider } from './wiring';
import { EngineHttpClient } from '../providers/http/engine-http.client';
import { ProvidersModule } from '../providers/providers.module';
import { teamEngines } from './team-engines';

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

/** The decision core's services, one list for every root that wires it (see `CORE_WIRING`). */
export const CORE_SERVICES = CORE_WIRING.map((wiring) => wiring.provide);

/**
 * Every engine of the application: the `@System1ProviderDefinition()` classes Nest finds (the built-ins and a team's
 * module) and the config's `[engines] modules`, which the hooks load the same way.
 */
const engineDefinitions: Provider<ProviderDefinitions> = {
  provide: SYSTEM1_PROVIDERS,
  inject: [DiscoveryService, system1Config.KEY, EngineHttpClient],
  useFactory: async (
    discovery: DiscoveryService,
    config: LoadedConfig,
    http: EngineHttpClient,
  ): Promise<ProviderDefinitions> => {
    const discovered = await providerDefinitionsToken.useFactory(discovery);
    const team = teamEngines(config, http);
    return { all: () => [...discovered.all(), ...team] };
  },
};

/**
 * The store `[state] url` names, shared by every process of the deployment (servers, the library, `mcp`); without
 * it each keeps its own state. The hooks (a process per prompt) never open it: they start without Nest.
 */
const sharedState: Provider = {
  provide: SHARED_STATE,
  inject: [system1Config.KEY, PROCESS_ENV],
  useFactory: (config: LoadedConfig, env: Env) => {
    const logger = new Logger('State');
    return openSharedState(config, env, (line, level) => logger[level](line));
  },
};

/**
 * The decision core as one Nest module: the providers (built-ins, any `@System1ProviderDefinition()` class in the
 * application and the config's `[engines] modules`), the one pipeline, health and calibration, wired from
 * `CORE_WIRING`. The MCP root, the CLI root and `createSystem1` import it; feature modules inject its
 * services, since it is global.
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
    const config = options.config
      ? GivenConfigModule.with(options.config, options.env ?? process.env)
      : System1ConfigModule;
    const store: Provider[] = options.cooldownStore
      ? [{ provide: COOLDOWN_STORE, useValue: options.cooldownStore }]
      : [];
    const services = [...CORE_WIRING, ...SERVER_WIRING];
    return {
      module: System1Module,
      global: true,
      imports: [config, DiscoveryModule, ProvidersModule],
      providers: [...store, sharedState, engineDefinitions, ...services.map(nestProvider)],
      exports: [ProvidersModule, SYSTEM1_PROVIDERS, ...services.map((wiring) => wiring.provide)],
    };
  }
}
