import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is calling, for the decisions made on their behalf: serve-http knows its caller (a named token or an
 * OAuth claim) and runs the request inside this scope, so the tools need no extra argument and a caller
 * cannot claim another's scope (it is set by the server, never read from the request).
 */
export interface CallerScope {
  /** The caller's name, for logs and metrics. */
  name: string;
  /** What this caller may name in system1_ask's `model`, and the key an operator widens it with. */
  callerModels: readonly string[];
  widenedBy: string;
}

export const callerScope = new AsyncLocalStorage<CallerScope>();
