export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/**
 * Runs `work` with a real deadline: at `ms` its signal aborts (so an HTTP call or a sleep stops) and the
 * returned promise rejects with {@link DeadlineExceeded}, even if `work` ignores the signal.
 */
export async function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const exceeded = new DeadlineExceeded();
      controller.abort(exceeded);
      reject(exceeded);
    }, ms);
  });
  const call = Promise.resolve().then(() => work(controller.signal));
  call.catch(() => undefined); // the loser of the race must not surface as an unhandled rejection
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
