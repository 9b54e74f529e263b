import { performance } from 'node:perf_hooks';
import type { CooldownService } from './cooldown.service';

/**
 * Waits, while every one of `keys` is cooling down, for the first to be askable again (its window over, or its
 * trial answered), as long as that can happen before `until` (a `performance.now()` time). False when it cannot,
 * or the caller cancelled: the call then fails at once rather than waiting for nothing.
 */
export async function waitForRecovery(
  cooldown: CooldownService,
  keys: ReadonlySet<string>,
  until: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  for (;;) {
    if (signal?.aborted) return false;
    const waits = [...keys].map((key) => cooldown.recoversInMs(key));
    if (waits.some((ms) => ms === 0)) return true;
    const known = waits.filter((ms): ms is number => ms !== undefined);
    // A trial under way may answer at any moment; a window ends when it ends.
    const trialRunning = known.length < waits.length;
    const soonest = known.length > 0 ? Math.min(...known) : Infinity;
    const left = until - performance.now();
    if (left <= 0 || (!trialRunning && soonest > left)) return false;
    await cooldownChange(cooldown, keys, Math.min(soonest, left), signal);
  }
}

/** Resolves after `ms`, at a change of one of `keys`' cooldowns in this process, or at the caller's cancel. */
function cooldownChange(
  cooldown: CooldownService,
  keys: ReadonlySet<string>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = cooldown.onChange((key) => keys.has(key) && done());
    signal?.addEventListener('abort', done, { once: true });
  });
}
