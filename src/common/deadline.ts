export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/** Why the caller's side ended an attempt: it cancelled, or the engine was unregistered meanwhile. */
export class AttemptCancelled extends Error {
  override readonly name = 'AttemptCancelled';
}

/** Why the work's signal aborts when the work itself failed: whatever it still has in flight is of no use. */
export class AttemptFailed extends Error {
  override readonly name = 'AttemptFailed';
}

/**
 * Runs `work` with a real deadline: at `ms` its signal aborts (so an HTTP call or a sleep stops) and the
 * returned promise rejects with {@link DeadlineExceeded}, even if `work` ignores the signal. When one of
 * `cancels` aborts first, the signal aborts with that signal's reason and the promise rejects with
 * {@link AttemptCancelled}. When the work fails, its signal aborts too: a choice engine asks each question
 * in a request of its own, and one that failed must not leave the others open at the engine. One
 * controller, and one listener on every cancel: a signal linked per attempt (AbortSignal.any, or a
 * controller per source) was a twentieth of a busy server's time.
 */
export function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  cancels: readonly AbortSignal[] = [],
): Promise<T> {
  for (const signal of cancels) if (signal.aborted) return Promise.reject(cancelledBy(signal));
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    // The first of the work, the deadline and a cancel settles; the others are released at once. One
    // listener for every cancel: it is told which signal aborted (an attempt in flight holds all of this).
    const release = () => {
      clearTimeout(timer);
      for (const signal of cancels) signal.removeEventListener('abort', onCancel);
    };
    const stop = (reason: unknown, failure: Error) => {
      release();
      controller.abort(reason);
      reject(failure);
    };
    const onCancel = (event: Event) => {
      const signal = event.target as AbortSignal;
      stop(signal.reason, cancelledBy(signal));
    };
    const timer = setTimeout(() => {
      const exceeded = new DeadlineExceeded();
      stop(exceeded, exceeded);
    }, ms);
    for (const signal of cancels) signal.addEventListener('abort', onCancel, { once: true });
    // Started at once, not a tick later: every tick on a decision's way is paid by each of its copies.
    let running: Promise<T>;
    try {
      running = Promise.resolve(work(controller.signal));
    } catch (error) {
      // A work that throws before its first await fails as one that rejects: passed through as thrown.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      running = Promise.reject(error);
    }
    // A work that settles after the deadline or a cancel settles nothing more (and surfaces no rejection).
    running.then(
      (value) => {
        release();
        resolve(value);
      },
      // The work's own failure, passed through as it was thrown (an engine's, whatever it is).
      (error: unknown) => {
        release();
        controller.abort(new AttemptFailed('another part of the attempt failed'));
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      },
    );
  });
}

function cancelledBy(signal: AbortSignal): AttemptCancelled {
  return signal.reason instanceof AttemptCancelled
    ? signal.reason
    : new AttemptCancelled('the caller cancelled the call');
}

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
