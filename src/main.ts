#!/usr/bin/env node
import 'reflect-metadata';
import { gatewayLogger } from './logging/gateway.logger';

// Modules are required inside each path, not imported at the top: the two paths load different halves of
// the dependency tree, and start-up time is what MCP clients (and the routing hook) wait on.

/** commander reports --help, --version and usage errors by throwing; these carry their own exit code. */
interface CommanderExit extends Error {
  exitCode?: number;
}

/** `system1 mcp`: the lean path, a plain application context with only the server's modules. */
async function serveMcp(): Promise<void> {
  const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
  const { McpAppModule } = require('./mcp-app.module') as typeof import('./mcp-app.module');
  const { McpServerService } = require('./mcp/mcp-server.service') as typeof import('./mcp/mcp-server.service');
  const app = await NestFactory.createApplicationContext(McpAppModule, { logger: gatewayLogger, abortOnError: false });
  try {
    await app.get(McpServerService).serveStdio();
  } finally {
    await app.close();
  }
}

/** Every other command, through nest-commander over the full container. */
async function runCommand(): Promise<void> {
  const { CommandFactory } = require('nest-commander') as typeof import('nest-commander');
  const { Commander } = require('nest-commander/src/constants') as typeof import('nest-commander/src/constants');
  const { AppModule } = require('./app.module') as typeof import('./app.module');
  const { GATEWAY_VERSION } = require('./gateway/version') as typeof import('./gateway/version');
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

const command = process.argv[2] === 'mcp' && process.argv.length === 3 ? serveMcp : runCommand;
command().catch((error: unknown) => {
  gatewayLogger.error(`system1 failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'Cli');
  process.exitCode = 1;
});
