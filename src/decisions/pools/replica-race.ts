import { AttemptCancelled } from '../../common/deadline';

/** One copy of a request in a race: which it was, and how it ended. */
export interface RaceCopy<R> {
  /** The second copy, sent after the delay. */
  hedge: boolean;
  result: R;
  /** Aborted because the other copy answered first. */
  cancelled: boolean;
}

/** Why the losing copy was stopped: its error, and what its engine sees as the abort's reason. */
export const LOST_RACE = 'another replica answered first (a hedged request)';

/**
 * Runs the first copy; when it has not settled `afterMs` after it began, `launch` may start a second one (it
 * returns undefined when none can go: no other replica, no budget). The first result that `accepted` takes
 * wins and the other copy is aborted through its own signal (its connection closes); a copy that ends in a
 * result not accepted leaves the race to the other. A copy's `signal` also aborts with `caller`.
 */
export function raceCopies<R>(
  launch: (hedge: boolean, signal: AbortSignal | undefined) => Promise<R> | undefined,
  accepted: (result: R) => boolean,
  afterMs: number | undefined,
  caller: AbortSignal | undefined,
): Promise<{ copies: RaceCopy<R>[]; winner?: RaceCopy<R> }> {
  if (afterMs !== undefined) return race(launch, accepted, afterMs, caller);
  // No race: the caller's signal as it is (a signal of its own per call costs more than the rest of the step),
  // and no suspended function of its own held while the copy runs.
  return launch(false, caller)!.then((result) => {
    const only: RaceCopy<R> = { hedge: false, result, cancelled: false };
    return accepted(result) ? { copies: [only], winner: only } : { copies: [only] };
  });
}

/** The hedged race itself (see raceCopies). */
async function race<R>(
  launch: (hedge: boolean, signal: AbortSignal | undefined) => Promise<R> | undefined,
  accepted: (result: R) => boolean,
  afterMs: number,
  caller: AbortSignal | undefined,
): Promise<{ copies: RaceCopy<R>[]; winner?: RaceCopy<R> }> {
  type Running = { hedge: boolean; controller: AbortController; done: Promise<RaceCopy<R>>; settled?: RaceCopy<R> };
  const start = (hedge: boolean): Running | undefined => {
    const controller = new AbortController();
    const signal = caller ? AbortSignal.any([caller, controller.signal]) : controller.signal;
    const work = launch(hedge, signal);
    if (!work) return undefined;
    const running: Running = {
      hedge,
      controller,
      done: work.then((result) => (running.settled = { hedge, result, cancelled: controller.signal.aborted })),
    };
    return running;
  };
  const first = start(false)!;
  let timer: NodeJS.Timeout | undefined;
  const delay = new Promise<void>((resolve) => (timer = setTimeout(resolve, afterMs)));
  await Promise.race([first.done, delay]);
  clearTimeout(timer);
  // Settled before the delay (an answer, or a failure the caller moves past): no second copy.
  const second = first.settled || caller?.aborted ? undefined : start(true);
  const running = second ? [first, second] : [first];
  let winner: RaceCopy<R> | undefined;
  const pending = new Set(running);
  while (pending.size > 0 && !winner) {
    const copy = await Promise.race([...pending].map((entry) => entry.done.then(() => entry)));
    pending.delete(copy);
    if (accepted(copy.settled!.result)) winner = copy.settled;
  }
  for (const copy of pending) copy.controller.abort(new AttemptCancelled(LOST_RACE));
  const copies = await Promise.all(running.map((copy) => copy.done));
  return { copies, ...(winner && { winner }) };
}
