import { AttemptCancelled, DeadlineExceeded, withDeadline } from '../../../src/common/deadline';

/** Work that never settles by itself and records the signal it was given. */
function hanging(seen: AbortSignal[]): (signal: AbortSignal) => Promise<never> {
  return (signal) => {
    seen.push(signal);
    return new Promise<never>(() => undefined);
  };
}

describe('withDeadline: one attempt under its deadline and the caller cancels', () => {
  it('settles with the work when it answers in time, and leaves no listener on the cancels', async () => {
    const caller = new AbortController();
    const added = jest.spyOn(caller.signal, 'addEventListener');
    const removed = jest.spyOn(caller.signal, 'removeEventListener');
    await expect(withDeadline(async () => 'answer', 1000, [caller.signal])).resolves.toBe('answer');
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed).toHaveBeenCalledWith('abort', added.mock.calls[0][1]);
  });

  it('rejects with DeadlineExceeded at the deadline, and aborts the signal the work holds with it', async () => {
    const seen: AbortSignal[] = [];
    const failure = await withDeadline(hanging(seen), 20).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeadlineExceeded);
    expect(seen[0].aborted).toBe(true);
    expect(seen[0].reason).toBe(failure);
  });

  it("rejects with AttemptCancelled on a cancel, and the work's signal carries the cancel's reason", async () => {
    const seen: AbortSignal[] = [];
    const caller = new AbortController();
    const running = withDeadline(hanging(seen), 60_000, [caller.signal]);
    await Promise.resolve(); // the work starts on the next microtask
    await Promise.resolve();
    const reason = new AttemptCancelled('provider x was unregistered during the call');
    caller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(seen[0].reason).toBe(reason);
  });

  it('names the caller in its own words when the cancel gave another reason', async () => {
    const caller = new AbortController();
    const running = withDeadline(hanging([]), 60_000, [caller.signal]);
    caller.abort(new Error('client went away'));
    await expect(running).rejects.toEqual(new AttemptCancelled('the caller cancelled the call'));
  });

  it('does not start the work when a cancel has already aborted', async () => {
    const seen: AbortSignal[] = [];
    await expect(withDeadline(hanging(seen), 1000, [AbortSignal.abort()])).rejects.toBeInstanceOf(AttemptCancelled);
    expect(seen).toHaveLength(0);
  });

  it("passes the work's own failure through", async () => {
    await expect(withDeadline(() => Promise.reject(new Error('refused')), 1000)).rejects.toThrow('refused');
  });

  it('fails as the work failed when the work throws before it returns a promise', async () => {
    const throwing = (): Promise<never> => {
      throw new Error('no engine');
    };
    await expect(withDeadline(throwing, 60_000)).rejects.toThrow('no engine');
  });

  // A choice engine asks each question in its own request: one failing must not leave the others running.
  it('aborts the signal the work holds when the work fails, so what it still has in flight stops', async () => {
    const seen: AbortSignal[] = [];
    const failing = (signal: AbortSignal) => {
      seen.push(signal);
      return Promise.reject(new Error('HTTP 500'));
    };
    await expect(withDeadline(failing, 60_000)).rejects.toThrow('HTTP 500');
    expect(seen[0].aborted).toBe(true);
  });

  it('leaves the signal alone when the work answers (nothing is left running to stop)', async () => {
    const seen: AbortSignal[] = [];
    await withDeadline(async (signal) => void seen.push(signal), 60_000);
    expect(seen[0].aborted).toBe(false);
  });
});
