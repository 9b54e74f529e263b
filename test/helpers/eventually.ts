/**
 * How long a test waits for something that happens after a call returns (a socket closed, a child exited).
 * A guard against hanging on a broken build, never a speed check: ample for a busy 2-core machine.
 */
export const SETTLE_LIMIT_MS = 15_000;

/** Resolves once `condition` holds (polled), or fails naming `what` did not happen. */
export async function eventually(condition: () => boolean, what: string, limitMs = SETTLE_LIMIT_MS): Promise<void> {
  const until = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`${what}: still not so after ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Reads `read()` (polled, 10 ms apart) until its value `holds`, and returns that value; or fails naming
 * `what` did not happen and the last value read.
 */
export async function eventuallyRead<T>(
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  what: string,
  limitMs = SETTLE_LIMIT_MS,
): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > until)
      throw new Error(`${what}: still not so after ${limitMs / 1000} s (last read: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
