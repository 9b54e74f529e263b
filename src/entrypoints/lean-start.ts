import { gatewayLogger } from '../logging/gateway.logger';
import type { CodeCacheUse } from './bundle-loader';

/** What main.ts tells a lean path about how it was loaded. */
export interface LeanStart {
  codeCache: CodeCacheUse;
}

/** Logged at DEBUG once the log level is known: a rejected cache shows only as a slower start. */
export function logCodeCache({ codeCache }: LeanStart): void {
  gatewayLogger.debug(`code cache ${codeCache} (node ${process.version})`, 'Start');
}

/** A lean path that fails before it serves, reported through its own bundle's (configured) logger. */
export { reportStartFailure } from '../logging/process-failures';
