/** Why the caller's side ended an attempt: it cancelled, or the engine was unregistered meanwhile. */
export class AttemptCancelled extends Error {
  override readonly name = 'AttemptCancelled';
}

/**
 * Settles with `work`, or rejects with {@link AttemptCancelled} as soon as one of `signals` aborts, even when
 * `work` ignores its signal (a timeout cannot stop non-cooperative code; the caller must not wait on it).
 */
export function abortable<T>(work: Promise<T>, signals: readonly (AbortSignal | undefined)[]): Promise<T> {
  const live = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (live.length === 0) return work;
  work.catch(() => undefined); // the loser of the race must not surface as an unhandled rejection
  return new Promise<T>((resolve, reject) => {
    const cancel = (signal: AbortSignal) =>
      reject(
        signal.reason instanceof AttemptCancelled
          ? signal.reason
          : new AttemptCancelled('the caller cancelled the call'),
      );
    const already = live.find((signal) => signal.aborted);
    if (already) return cancel(already);
    const listeners = live.map((signal) => {
      const listener = () => cancel(signal);
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    });
    work.then(resolve, reject).finally(() => listeners.forEach((remove) => remove()));
  });
}

/**
 * A signal that aborts with the first of `signals` (and its reason), and `release`, which removes its listeners
 * once the work is done. AbortSignal.any does the same through weak references the collector must chase: with a
 * cancel signal on every decision it was about a fifth of the pipeline's own time.
 */
export function firstOf(signals: readonly AbortSignal[]): { signal: AbortSignal; release: () => void } {
  const already = signals.find((signal) => signal.aborted);
  if (already) return { signal: AbortSignal.abort(already.reason), release: () => undefined };
  const controller = new AbortController();
  const listeners = signals.map((signal) => {
    const listener = () => controller.abort(signal.reason);
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  });
  return { signal: controller.signal, release: () => listeners.forEach((remove) => remove()) };
}
