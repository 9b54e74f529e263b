/**
 * How much the router takes from its clients: bytes, time and sockets. Fixed for users (docs/structured-router.md
 * lists them); a test sets them small to watch them act.
 */
export interface RouterLimits {
  /** The largest request body read (images make requests big; they go upstream all the same). */
  maxBodyBytes: number;
  /** The bytes of request bodies held at once across all requests; past it a request gets 503 and Retry-After. */
  maxBufferedBytes: number;
  /** Shadow mode: the bytes of slow answers kept to compare across all requests at once (each keeps at most 8 MiB). */
  maxKeptSlowBytes: number;
  /** After answering before a body was read, this much more is read and dropped so the client sees the answer. */
  maxDrainBytes: number;
  /** A client must have sent its request's headers within this time... */
  headersTimeoutMs: number;
  /** ...and the whole request, body included, within this one. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** How often the server looks for requests past their time. */
  checkIntervalMs: number;
  /** Connections beyond this many are closed as they arrive. */
  maxConnections: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_ROUTER_LIMITS: RouterLimits = {
  maxBodyBytes: 64 * MIB,
  maxBufferedBytes: 128 * MIB,
  maxKeptSlowBytes: 64 * MIB,
  maxDrainBytes: 8 * MIB,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 256,
};

export const routerLimits = (overrides: Partial<RouterLimits> = {}): RouterLimits => ({
  ...DEFAULT_ROUTER_LIMITS,
  ...overrides,
});
