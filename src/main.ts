#!/usr/bin/env node

// Modules are required inside each path, not imported at the top: the paths load different halves of the
// dependency tree, and start-up time is what MCP clients (and the routing hook) wait on.

/** commander reports --help, --version and usage errors by throwing; these carry their own exit code. */
interface CommanderExit extends Error {
  exitCode?: number;
}

type LeanStart = import('./entrypoints/lean-start').LeanStart;

interface LeanPath {
  entry: import('./entrypoints/bundle-loader').LeanEntry;
  /** The function of the bundle that runs the command. */
  run: string;
  /** The long-lived server: its heap policy is set around loading (see server-heap.ts). */
  server?: true;
}

/**
 * The commands a client starts often and waits on (`mcp` at every session, the hooks at every prompt and
 * spawn) run from bundles with a code cache (see bundle-loader.ts), without nest-commander or the CLI.
 */
const LEAN_PATHS: Record<string, LeanPath> = {
  mcp: { entry: 'serve-mcp', run: 'serveMcp', server: true },
  'route-hook': { entry: 'claude-hooks', run: 'routeHook' },
  'spawn-hook': { entry: 'claude-hooks', run: 'spawnHook' },
};

function runLean({ entry, run, server }: LeanPath): void {
  const heap = server
    ? (require('./entrypoints/server-heap') as typeof import('./entrypoints/server-heap')).serverHeap
    : undefined;
  heap?.beforeCompile();
  const { loadLean } = require('./entrypoints/bundle-loader') as typeof import('./entrypoints/bundle-loader');
  type Entry = Record<string, (start: LeanStart) => Promise<void>> & { reportStartFailure(error: unknown): void };
  const { exports: lean, codeCache } = loadLean<Entry>(entry, { afterCompile: heap?.whileStarting });
  lean[run]({ codeCache }).catch((error: unknown) => lean.reportStartFailure(error));
}

/** Every other command, through nest-commander over the full container. */
async function runCommand(): Promise<void> {
  // Before anything loads zod: this process's zod keeps no closure per failing parse (see zod-failure.ts).
  (require('./entrypoints/zod-failure') as typeof import('./entrypoints/zod-failure')).installZodFailureHook();
  require('reflect-metadata');
  const { CommandFactory } = require('nest-commander') as typeof import('nest-commander');
  const { Commander } = require('nest-commander/src/constants') as typeof import('nest-commander/src/constants');
  const { AppModule } = require('./entrypoints/app.module') as typeof import('./entrypoints/app.module');
  const { GATEWAY_VERSION } = require('./common/version') as typeof import('./common/version');
  const { gatewayLogger } = require('./logging/gateway.logger') as typeof import('./logging/gateway.logger');
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

/** In the words of a lean path's own report (its bundle's copy of the same function). */
function startFailed(error: unknown): void {
  const failures = require('./logging/process-failures') as typeof import('./logging/process-failures');
  failures.reportStartFailure(error);
}

const command = process.argv[2];
if (process.argv.length === 3 && Object.hasOwn(LEAN_PATHS, command)) {
  try {
    runLean(LEAN_PATHS[command]);
  } catch (error) {
    startFailed(error);
  }
} else {
  runCommand().catch(startFailed);
}
