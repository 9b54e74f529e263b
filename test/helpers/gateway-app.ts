import { type ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { loadConfig } from '../../src/config/config.loader';
import { McpModule } from '../../src/mcp/mcp.module';
import { System1Module } from '../../src/system1/system1.module';
import { GatewayLogger } from '../../src/logging/gateway.logger';

export interface GatewayAppOptions {
  /** The config file's text; none = no file. */
  toml?: string;
  env?: Record<string, string>;
  /** Extra modules, e.g. a team's engine module. */
  imports?: ModuleMetadata['imports'];
  /** Collects every log line the gateway writes (to check, say, that no secret is logged). */
  logs?: string[];
}

export const TEST_CONFIG_FILE = '/test/config.toml';

/** The gateway's Nest container, with an in-memory config file and environment instead of the real ones. */
export async function gatewayApp({
  toml,
  env = {},
  imports = [],
  logs,
}: GatewayAppOptions = {}): Promise<TestingModule> {
  const fullEnv = { HOME: '/test/home', SYSTEM1_INSTALL_DIR: '/test/install', ...env };
  const config = loadConfig({
    env: { ...fullEnv, SYSTEM1_CONFIG: TEST_CONFIG_FILE },
    readFile: () => {
      if (toml === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return toml;
    },
  });
  if (toml === undefined) config.configFile = null;
  config.errors = config.errors.filter((error) => error.key !== '(file)');
  const moduleRef = await Test.createTestingModule({
    imports: [System1Module.forRoot({ config, env: fullEnv }), McpModule, ...imports],
  })
    // Unit suites assert on results, not log text (the e2e suites read the real server's stderr).
    .setLogger(debugLogger(logs))
    .compile();
  return moduleRef.init();
}

/** At DEBUG so a test sees every line that could carry a secret; discarded unless `logs` is given. */
function debugLogger(logs?: string[]): GatewayLogger {
  const logger = new GatewayLogger((line) => logs?.push(line));
  logger.configure('DEBUG', '');
  return logger;
}
