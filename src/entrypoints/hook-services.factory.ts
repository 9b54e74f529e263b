import { Logger } from '@nestjs/common';
import { CalibrationService } from '../calibration/calibration.service';
import { loadConfig, type LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { ConfigStatus } from '../decisions/config-status.service';
import { PauseState } from '../decisions/pause-state.service';
import { GatewayLogger, gatewayLogger } from '../logging/gateway.logger';
import { BUILT_IN_PROVIDERS } from '../providers/built-in';
import { EngineHttpClient } from '../providers/http/engine-http.client';
import { ProviderRegistry } from '../decisions/provider-registry.service';
import { FeatureReader } from '../routing/feature-reader.service';
import { RouteHookService } from '../routing/route-hook.service';
import { SkillPicker } from '../routing/skill-picker.service';
import { SpawnRecorder } from '../routing/spawn-recorder.service';

export interface HookServices {
  config: LoadedConfig;
  registry: ProviderRegistry;
  calibration: CalibrationService;
  featureReader: FeatureReader;
  routeHook: RouteHookService;
  spawnRecorder: SpawnRecorder;
}

/**
 * The Claude Code hooks' services, wired by hand over the same classes the Nest container wires for the
 * CLI. Claude Code waits on the hook before every prompt, and Nest's container (with @nestjs/core's module
 * tree) was most of the hook's start-up; the object graph is small enough to build in this one place.
 */
export function createHookServices(env: Env = process.env, logger: GatewayLogger = gatewayLogger): HookServices {
  const config = loadConfig({ env });
  logger.configure(config.gateway.log_level, config.gateway.log_file);
  // The services log through Nest's Logger facade, which writes to stdout until it is pointed elsewhere.
  Logger.overrideLogger(logger);
  const http = new EngineHttpClient();
  const definitions = BUILT_IN_PROVIDERS.map((Definition) => new Definition(http));
  const registry = new ProviderRegistry({ all: () => definitions }, config, env);
  const calibration = new CalibrationService(config);
  const featureReader = new FeatureReader(config, registry, calibration);
  const routeHook = new RouteHookService(
    config,
    new ConfigStatus(config, registry),
    new PauseState(config),
    featureReader,
    new SkillPicker(config, env, registry, calibration),
  );
  return { config, registry, calibration, featureReader, routeHook, spawnRecorder: new SpawnRecorder(config) };
}
