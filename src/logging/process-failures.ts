import { gatewayLogger } from './gateway.logger';

/**
 * What the gateway logs when something fails outside any one request (a start that failed, a stray
 * rejection, a bug in a request handler), stated once for every entry point and server.
 */

/** An error as the log shows it: its stack where it has one. */
export const errorText = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

/**
 * A command that fails before it serves or runs: logged, and the process exits 1 once its work is done.
 * Each lean path's bundle reports through its own copy, whose logger the config has set up by then.
 */
export function reportStartFailure(error: unknown): void {
  gatewayLogger.error(`system1 failed to start: ${errorText(error)}`, 'Cli');
  process.exitCode = 1;
}

/** A long-lived server keeps answering: a stray rejection is logged, never allowed to end the process. */
export function logStrayRejections(log: (line: string) => void): void {
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${errorText(reason)}`));
}
