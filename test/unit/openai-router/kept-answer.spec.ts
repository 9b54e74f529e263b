/** What shadow mode keeps of slow answers: each within 8 MiB, all of them at once within one shared budget. */
import { ByteBudget } from '../../../src/openai-router/byte-budget';
import { KeptAnswer } from '../../../src/openai-router/kept-answer';

const KIB = 1024;
const bytes = (count: number) => Buffer.alloc(count, 0x61);

describe('slow answers kept at once', () => {
  it('an answer that would pass the shared budget is not kept, while those already kept are; its room comes back', () => {
    const budget = new ByteBudget(700 * KIB);
    const first = new KeptAnswer(budget);
    const second = new KeptAnswer(budget);
    first.add(bytes(200 * KIB));
    second.add(bytes(200 * KIB));
    first.add(bytes(200 * KIB));
    second.add(bytes(200 * KIB)); // 800 KiB in all: past the budget
    expect(second.finish()).toEqual({
      unavailable:
        'the router was keeping as much of slow answers as it may at once (700 KiB, all requests together), ' +
        'so it did not keep this one to compare',
    });
    const kept = first.finish();
    expect('body' in kept && kept.body.length).toBe(400 * KIB);
    // Both done: the whole budget is free for the next one.
    const third = new KeptAnswer(budget);
    third.add(bytes(700 * KIB));
    expect('body' in third.finish()).toBe(true);
  });

  it('an answer over 8 MiB gives its bytes back at once, not when it ends', () => {
    const budget = new ByteBudget(10 * 1024 * KIB);
    const big = new KeptAnswer(budget);
    for (let i = 0; i < 9; i++) big.add(bytes(1024 * KIB));
    const other = new KeptAnswer(budget);
    other.add(bytes(8 * 1024 * KIB));
    expect('body' in other.finish()).toBe(true);
    expect(big.finish()).toEqual({
      unavailable: 'the slow answer was over 8 MiB, more than the router keeps to compare',
    });
  });

  it('an answer that failed midway gives its bytes back', () => {
    const budget = new ByteBudget(100 * KIB);
    const failed = new KeptAnswer(budget);
    failed.add(bytes(100 * KIB));
    failed.release();
    failed.release();
    const next = new KeptAnswer(budget);
    next.add(bytes(100 * KIB));
    expect('body' in next.finish()).toBe(true);
  });
});
