import { Logger } from '@nestjs/common';
import { type CalibrationService } from '../calibration/calibration.service';
import { loadConfig, type LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import * as path from 'node:path';
import { CooldownFile } from '../decisions/pools/cooldown-file';
import { type GatewayLogger, gatewayLogger } from '../logging/gateway.logger';
import { buildCoreGraph } from '../system1/core-graph';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import { type ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { FeatureReader } from '../routing/feature-reader.service';
import { RouteHookService } from '../routing/route-hook.service';
import { SkillPicker } from '../routing/skill-picker.service';
import { SpawnRecorder } from '../routing/spawn-recorder.service';

export interface HookServices {
  config: LoadedConfig;
  registry: ProviderRegistry;
  calibration: CalibrationService;
  decisions: DecisionService;
  featureReader: FeatureReader;
  routeHook: RouteHookService;
  spawnRecorder: SpawnRecorder;
}

/**
 * The Claude Code hooks' services over the hand-built core (see `buildCoreGraph`). Cooldowns are kept in
 * the install dir, since each prompt is a new process: a hanging engine costs the hook its budget once.
 */
export function createHookServices(env: Env = process.env, logger: GatewayLogger = gatewayLogger): HookServices {
  const config = loadConfig({ env });
  logger.configure(config.gateway.log_level, config.gateway.log_file);
  // The services log through Nest's Logger facade, which writes to stdout until it is pointed elsewhere.
  Logger.overrideLogger(logger);
  const core = buildCoreGraph(config, env, new CooldownFile(path.join(config.installDir, 'cooldown.json')));
  const featureReader = new FeatureReader(config, core.decisions);
  const routeHook = new RouteHookService(
    config,
    core.configStatus,
    core.pause,
    featureReader,
    new SkillPicker(config, env, core.decisions),
  );
  const { registry, calibration, decisions } = core;
  return {
    config,
    registry,
    calibration,
    decisions,
    featureReader,
    routeHook,
    spawnRecorder: new SpawnRecorder(config),
  };
}
