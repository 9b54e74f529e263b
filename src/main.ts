#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { Commander } from 'nest-commander/src/constants';
import { AppModule } from './app.module';
import { GATEWAY_VERSION } from './gateway/version';
import { gatewayLogger } from './logging/gateway.logger';

/** commander reports --help, --version and usage errors by throwing; these carry their own exit code. */
interface CommanderExit extends Error {
  exitCode?: number;
}

async function main(): Promise<void> {
  const app = await CommandFactory.createWithoutRunning(AppModule, {
    logger: gatewayLogger,
    version: GATEWAY_VERSION,
    // With Nest's default, a container error exits 1 silently; report it instead.
    abortOnError: false,
    errorHandler: (error: CommanderExit) => {
      process.exit(error.exitCode ?? 1);
    },
    serviceErrorHandler: (error: Error) => {
      gatewayLogger.error(`system1: ${error.stack ?? error.message}`, 'Cli');
      process.exitCode = 1;
    },
  });
  // commander names the program after the script file (`main`); users know it as `system1`.
  app.get<{ name(name: string): unknown }>(Commander, { strict: false }).name('system1');
  try {
    await CommandFactory.runApplication(app);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  gatewayLogger.error(`system1 failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'Cli');
  process.exitCode = 1;
});
