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

/** The hook's whole budget, start-up included: Claude Code waits on it before every prompt. */
const HOOK_BUDGET_MS = 1500;

/**
 * The Claude Code hooks (`route-hook`: UserPromptSubmit; `spawn-hook`: PreToolUse on the Agent tool). Each
 * reads the hook JSON on stdin, prints a hint or nothing, and always exits 0 within its budget: its own
 * errors go to the log, never to the user.
 */
function claudeHook(handle: (app: import('@nestjs/common').INestApplicationContext, input: unknown, budgetMs: number) => Promise<string | null>) {
  return async (): Promise<void> => {
    const started = Date.now() - process.uptime() * 1000;
    const hardStop = setTimeout(() => process.exit(0), Math.max(0, HOOK_BUDGET_MS - (Date.now() - started)));
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      let input: unknown;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return;
      }
      const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
      const { RouteHookAppModule } = require('./route-hook-app.module') as typeof import('./route-hook-app.module');
      const app = await NestFactory.createApplicationContext(RouteHookAppModule, { logger: gatewayLogger, abortOnError: false });
      // What is left of the budget, less a margin to print and exit.
      const output = await handle(app, input, HOOK_BUDGET_MS - (Date.now() - started) - 100);
      if (output) process.stdout.write(`${output}\n`);
    } catch (error) {
      gatewayLogger.error(`hook: ${error instanceof Error ? error.message : String(error)}`, 'Hook');
    } finally {
      clearTimeout(hardStop);
      // Open sockets to a hung engine must not keep Claude Code waiting.
      setImmediate(() => process.exit(0));
    }
  };
}

const routeHook = claudeHook(async (app, input, budgetMs) => {
  const { RouteHookService } = require('./routing/route-hook.service') as typeof import('./routing/route-hook.service');
  return (await app.get(RouteHookService).handle(input, budgetMs)).output;
});

const spawnHook = claudeHook(async (app, input) => {
  const { SpawnRecorder } = require('./routing/spawn-recorder.service') as typeof import('./routing/spawn-recorder.service');
  app.get(SpawnRecorder).record(input);
  return null;
});

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

const LEAN_PATHS: Record<string, () => Promise<void>> = { mcp: serveMcp, 'route-hook': routeHook, 'spawn-hook': spawnHook };
const command = (process.argv.length === 3 && LEAN_PATHS[process.argv[2]]) || runCommand;
command().catch((error: unknown) => {
  gatewayLogger.error(`system1 failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'Cli');
  process.exitCode = 1;
});
