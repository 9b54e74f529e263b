import { loadConfig, type LoadedConfig } from '../../src/config/config.loader';
import { openSharedState } from '../../src/state/open-state';
import type { SharedState } from '../../src/state/shared-state';
import { redisServerBinary, startRedis } from '../../bench/redis-server';

/** Why the suites against a real Redis cannot run here, or undefined when they can. */
export const NO_REDIS = redisServerBinary()
  ? undefined
  : 'redis-server is not installed (apt-get install redis-server; .ci/run installs it)';
if (NO_REDIS) console.warn(`SKIPPED: ${NO_REDIS}`);

export type RunningRedis = Awaited<ReturnType<typeof startRedis>>;
export { startRedis };

/** A config read from `toml` and `env` as the gateway reads its file and variables. */
export function configOf(toml: string, env: Record<string, string> = {}): LoadedConfig {
  return loadConfig({ env: { HOME: '/test/home', SYSTEM1_CONFIG: '/test/config.toml', ...env }, readFile: () => toml });
}

/** The shared state a process of this config opens, with every line it logs kept in `lines`. */
export function openState(
  toml: string,
  env: Record<string, string> = {},
): { state: SharedState; lines: string[]; config: LoadedConfig } {
  const lines: string[] = [];
  const config = configOf(toml, env);
  return { state: openSharedState(config, env, (line, level) => lines.push(`${level}: ${line}`)), lines, config };
}
