import { registerAs } from '@nestjs/config';
import { loadConfig, type LoadedConfig } from './config.loader';

/**
 * The gateway's configuration as a @nestjs/config namespace, read once at start-up (clients restart the
 * server after a change). Inject with `@Inject(system1Config.KEY) config: LoadedConfig`.
 */
export const system1Config = registerAs('system1', (): LoadedConfig => loadConfig({ env: process.env }));

/** The process environment, injectable so tests can give another one (secrets are read from it). */
export const PROCESS_ENV = Symbol('PROCESS_ENV');
