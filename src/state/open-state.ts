import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { STATE_PASSWORD_VARIABLE, stateStoreAddress } from '../config/state-settings';
import { RedisState } from './redis-state';
import { IN_PROCESS, type SharedState } from './shared-state';
import { RECONNECT_AT_MOST_MS, StoreLink } from './store-link';

/**
 * The state a process shares: in the store `[state] url` names, else in-process. The client is ioredis: it
 * reconnects by itself, runs a script by its SHA and sends it again when the store lost it (EVALSHA, then EVAL),
 * pipelines calls made at once, and supports TLS (`rediss://`). Loaded only when a store is set.
 */
export function openSharedState(
  config: LoadedConfig,
  env: Env,
  log: (line: string, level: 'log' | 'warn') => void,
): SharedState {
  const { url, prefix, deadline_ms } = config.state;
  if (url === '') return IN_PROCESS;
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const password = env[STATE_PASSWORD_VARIABLE];
  const client = new Redis(url, {
    ...(password !== undefined && password !== '' && { password }),
    // A call while disconnected fails at once (the process uses its own state), never waits in a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    enableAutoPipelining: true,
    connectTimeout: 1000,
    // A connection to a store that went away is cut after this, so a closing process never waits on it.
    disconnectTimeout: 200,
    // Reconnect for ever, never more than a second apart.
    retryStrategy: (times: number) => Math.min(times * 100, RECONNECT_AT_MOST_MS),
  });
  // The listener needs its own connection (a subscribed one takes no other commands); it queues its SUBSCRIBE.
  const subscriber = client.duplicate({ enableOfflineQueue: true });
  const address = stateStoreAddress(url);
  return new RedisState(new StoreLink(client, deadline_ms, address, log), subscriber, prefix, address);
}
