#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { AppModule } from './app.module';
import { gatewayLogger } from './logging/gateway.logger';

/** commander reports --help, --version and usage errors by throwing; these carry their own exit code. */
interface CommanderExit extends Error {
  exitCode?: number;
  code?: string;
}

async function main(): Promise<void> {
  await CommandFactory.run(AppModule, {
    cliName: 'system1',
    logger: gatewayLogger,
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
}

main().catch((error: unknown) => {
  gatewayLogger.error(`system1 failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'Cli');
  process.exitCode = 1;
});
