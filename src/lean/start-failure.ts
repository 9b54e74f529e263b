import { gatewayLogger } from '../logging/gateway.logger';

/** A lean path that fails before it serves, reported through its own bundle's (configured) logger. */
export function reportStartFailure(error: unknown): void {
  gatewayLogger.error(`system1 failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'Cli');
  process.exitCode = 1;
}
