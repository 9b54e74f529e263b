import { waitFully } from '../../../src/common/full-wait';

describe('waitFully', () => {
  it('waits the whole time by performance.now()', async () => {
    const started = performance.now();
    await waitFully(50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('waits the whole time even when its timer fires early', async () => {
    // node:timers count from a millisecond clock, so a timer can fire a little short of the time that a
    // server measures with performance.now(); here every timer fires at once, the extreme of that.
    const early = jest
      .spyOn(global, 'setTimeout')
      .mockImplementation(((callback: () => void) => setImmediate(callback)) as unknown as typeof setTimeout);
    try {
      const started = performance.now();
      await waitFully(50);
      expect(performance.now() - started).toBeGreaterThanOrEqual(50);
      expect(early).toHaveBeenCalled();
    } finally {
      early.mockRestore();
    }
  });

  it('resolves at once for no time', async () => {
    const early = jest.spyOn(global, 'setTimeout');
    try {
      await waitFully(0);
      expect(early).not.toHaveBeenCalled();
    } finally {
      early.mockRestore();
    }
  });
});
