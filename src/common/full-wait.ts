/**
 * Resolves once `ms` have passed by performance.now(), the clock the servers measure their look-again windows
 * with (the pause file, the calibration fits). A timer alone can resolve a little short of that: node:timers
 * count whole milliseconds of the event loop's coarser clock (a CI run under load once saw a server miss a
 * pause made just before `system1 toggle` had waited), so the timer is set again until the time has passed.
 */
export function waitFully(ms: number): Promise<void> {
  const until = performance.now() + ms;
  return new Promise((resolve) => {
    const wait = () => {
      const left = until - performance.now();
      if (left <= 0) resolve();
      else setTimeout(wait, Math.ceil(left));
    };
    wait();
  });
}
