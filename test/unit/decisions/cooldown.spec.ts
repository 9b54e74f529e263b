/** CooldownService on a clock the test moves, and the CooldownFile store the routing hook keeps it in. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LoadedConfig } from '../../../src/config/config.loader';
import { CooldownFile } from '../../../src/decisions/pools/cooldown-file';
import { feedFifo, fifoIt, makeFifo } from '../../helpers/fifo';
import {
  type CooldownEntry,
  cooldownKey,
  CooldownService,
  type CooldownStore,
} from '../../../src/decisions/pools/cooldown.service';
import { DecisionErrorCode } from '../../../src/decisions/errors/decision-error';

/** A CooldownService whose clock stands still until the test moves it. */
class FakeClockCooldown extends CooldownService {
  clock = 1_000_000;

  protected override now(): number {
    return this.clock;
  }

  advance(ms: number): void {
    this.clock += ms;
  }
}

const configWith = (cooldownS: number) => ({ gateway: { cooldown_s: cooldownS } }) as unknown as LoadedConfig;
const cooldown = (cooldownS = 30, store?: CooldownStore) => new FakeClockCooldown(configWith(cooldownS), store);

const { Timeout, Unavailable, ProviderError, InvalidResponse, Cancelled } = DecisionErrorCode;

/** The windows of the backoff with cooldown_s = 30: an eighth of it, doubled at each failure again, up to 30 s. */
const W1 = 3_750;
const W2 = 7_500;
const W3 = 15_000;
const CAP = 30_000;

describe('CooldownService', () => {
  it('starts at no cooldown for a provider it never heard of', () => {
    const service = cooldown();
    expect(service.remainingMs('laya')).toBe(0);
    service.succeeded('laya'); // nothing to forget: no throw, still nothing
    expect(service.remainingMs('laya')).toBe(0);
  });

  it('starts the first window (an eighth of cooldown_s) at a single timeout, for that provider only', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(W1);
    expect(service.remainingMs('mock')).toBe(0);
    service.advance(1_250);
    expect(service.remainingMs('slow')).toBe(W1 - 1_250);
  });

  it('takes a fractional cooldown_s in milliseconds', () => {
    const service = cooldown(0.8);
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(100);
  });

  it('does not cool at two errors in a row, and cools at the third', () => {
    const service = cooldown(30);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', ProviderError);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', InvalidResponse);
    expect(service.remainingMs('laya')).toBe(W1);
  });

  it('counts the third error from the moment it happened, not from the first', () => {
    const service = cooldown(30);
    service.failed('laya', Unavailable);
    service.advance(5_000);
    service.failed('laya', Unavailable);
    service.advance(5_000);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(W1);
  });

  it('resets the count of errors at a success', () => {
    const service = cooldown(30);
    service.failed('laya', Unavailable);
    service.failed('laya', Unavailable);
    service.succeeded('laya');
    service.failed('laya', Unavailable);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(W1);
  });

  it('ends a running cooldown at a success (an answer)', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBeGreaterThan(0);
    service.succeeded('slow');
    expect(service.remainingMs('slow')).toBe(0);
  });

  it('keeps counts per provider', () => {
    const service = cooldown(30);
    service.failed('a', Unavailable);
    service.failed('b', Unavailable);
    service.failed('a', Unavailable);
    service.failed('b', Unavailable);
    service.succeeded('b');
    service.failed('a', Unavailable);
    service.failed('b', Unavailable);
    expect(service.remainingMs('a')).toBe(W1);
    expect(service.remainingMs('b')).toBe(0);
  });

  it('is over when the window is over (one call may try again), and the trial timing out starts the doubled window', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    service.advance(W1 - 1);
    expect(service.remainingMs('slow')).toBe(1);
    service.advance(1);
    expect(service.remainingMs('slow')).toBe(0);
    service.advance(60_000);
    // The call that tried again timed out too: the next window, twice as long, from now.
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(W2);
  });

  it('clamps a window that ends further ahead than cooldown_s (the clock stepped back) and ends it on time', () => {
    const entries = new Map<string, CooldownEntry>();
    const store: CooldownStore = {
      get: (key) => entries.get(key),
      set: (key, entry) => (entry ? entries.set(key, entry) : entries.delete(key)),
    };
    const service = cooldown(30, store);
    service.failed('slow', Timeout);
    service.advance(-3_600_000);
    expect(service.remainingMs('slow')).toBe(CAP);
    expect(entries.get('slow')!.until).toBe(service.clock + CAP);
    service.advance(CAP);
    expect(service.remainingMs('slow')).toBe(0);
  });

  it('after a window started by three errors and ended by an answer, three new errors start the first window again', () => {
    const service = cooldown(30);
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    service.advance(W1);
    expect(service.remainingMs('laya')).toBe(0);
    service.succeeded('laya');
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(W1);
  });

  // In the pipeline's order: admit() lets the one trial call through (and claims it), then the trial's
  // failure, even an error that alone would not cool, starts the next window at once, twice as long.
  it('cools again at once, for twice as long, when the trial call after a window fails, even with an error', () => {
    const service = cooldown(30);
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    service.advance(W1);
    expect(service.admit('laya')).toEqual({ remainingMs: 0, trial: true });
    expect(service.remainingMs('laya')).toBeGreaterThan(0); // every other call waits while the trial runs
    service.advance(2_000); // the trial's engine took 2 s to fail
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(W2); // the doubled window from its failure
    service.advance(W2);
    expect(service.admit('laya').trial).toBe(true); // the next trial
    service.succeeded('laya');
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0); // well again: one error is one error
  });

  it('lets system1_health read a cooldown without taking the trial', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    expect(service.peekMs('slow')).toBe(W1);
    expect(service.state('slow')).toEqual({ state: 'cooling', remainingMs: W1, failures: 0, level: 1 });
    service.advance(W1);
    for (let i = 0; i < 3; i++) expect(service.peekMs('slow')).toBeLessThan(0);
    expect(service.state('slow')).toEqual({ state: 'trial', remainingMs: 0, failures: 0, level: 1 });
    expect(service.admit('slow')).toEqual({ remainingMs: 0, trial: true }); // the trial is still free for a decision
    expect(service.peekMs('slow')).toBe(W1);
    expect(service.state('slow').state).toBe('trial');
  });

  it('keeps a chosen model apart from its provider: the model cools, the chain does not', () => {
    const service = cooldown(30);
    const chosen = cooldownKey({ provider: 'laya', model: 'no-such-checkpoint' });
    service.failed(chosen, Timeout);
    expect(service.remainingMs(chosen)).toBe(W1);
    expect(service.remainingMs(cooldownKey({ provider: 'laya' }))).toBe(0);
  });

  it("keeps the records of chosen models bounded, and never drops the chain's for them", () => {
    const service = cooldown(30);
    const first = cooldownKey({ provider: 'laya', model: 'invented-0' });
    service.failed('laya', Timeout);
    service.failed(first, Timeout);
    for (let i = 1; i < 5_000; i++) service.failed(cooldownKey({ provider: 'laya', model: `invented-${i}` }), Timeout);
    expect(service.remainingMs(first)).toBe(0); // forgotten: 5,000 names do not stay in memory
    expect(service.remainingMs('laya')).toBe(W1);
    // The most recent are kept: the model that failed last is still cooling.
    const last = cooldownKey({ provider: 'laya', model: 'invented-4999' });
    expect(service.remainingMs(last)).toBe(W1);
  });

  it('never cools with cooldown_s = 0, at timeouts or errors', () => {
    const service = cooldown(0);
    for (let i = 0; i < 10; i++) {
      service.failed('slow', Timeout);
      service.failed('laya', Unavailable);
    }
    expect(service.remainingMs('slow')).toBe(0);
    expect(service.remainingMs('laya')).toBe(0);
  });

  it.each([Cancelled, DecisionErrorCode.Unsupported, DecisionErrorCode.LimitExceeded, DecisionErrorCode.CoolingDown])(
    'never counts %s, which says nothing of the engine (a cancel, a refusal before sending, a skip), however many',
    (code) => {
      const service = cooldown(30);
      for (let i = 0; i < 10; i++) expect(service.failed('laya', code)).toBe(false);
      expect(service.remainingMs('laya')).toBe(0);
      // Nor does one in between add to the count of the engine's own failures.
      service.failed('laya', Unavailable);
      service.failed('laya', code);
      service.failed('laya', Unavailable);
      expect(service.remainingMs('laya')).toBe(0);
      service.failed('laya', Unavailable);
      expect(service.remainingMs('laya')).toBe(W1);
    },
  );

  it('is safe with provider names like Object.prototype members', () => {
    const service = cooldown(30);
    expect(service.remainingMs('constructor')).toBe(0);
    expect(service.remainingMs('__proto__')).toBe(0);
    service.failed('toString', Timeout);
    expect(service.remainingMs('toString')).toBe(W1);
    expect(service.remainingMs('constructor')).toBe(0);
  });

  it('keeps its record in the store it is given, so a second service over the same store sees it', () => {
    const saved = new Map<string, CooldownEntry>();
    const store: CooldownStore = {
      get: (key) => saved.get(key),
      set: (key, entry) => (entry ? saved.set(key, entry) : saved.delete(key)),
    };
    const first = cooldown(30, store);
    first.failed('slow', Timeout);
    expect(saved.get('slow')).toEqual({ failures: 0, until: first.clock + W1 });
    const second = cooldown(30, store);
    second.clock = first.clock + 1_000;
    expect(second.remainingMs('slow')).toBe(W1 - 1_000);
  });
});

// Users of other routers report a cooldown that a second failure does not extend: the engine is asked again
// at the first, shorter deadline although it failed since. Each failure before an answer is a step of backoff.
describe('CooldownService backoff', () => {
  it('extends a running window at a failure during it (a call that was in flight), doubling it from that failure', () => {
    const service = cooldown(30);
    service.failed('laya', Timeout);
    service.advance(1_000);
    service.failed('laya', Timeout); // a second call in flight timed out 1 s into the window
    expect(service.remainingMs('laya')).toBe(W2); // not the first window's 2.75 s left
    service.advance(1_000);
    service.failed('laya', Unavailable); // an error alone counts too once the engine is cooling
    expect(service.remainingMs('laya')).toBe(W3);
    expect(service.state('laya')).toMatchObject({ state: 'cooling', level: 3 });
  });

  it('caps the window at cooldown_s, counted from the latest failure', () => {
    const service = cooldown(30);
    for (const _ of [1, 2, 3, 4]) service.failed('laya', Timeout); // W1, W2, W3, then the cap
    expect(service.remainingMs('laya')).toBe(CAP);
    service.advance(100);
    service.failed('laya', Timeout);
    expect(service.remainingMs('laya')).toBe(CAP); // capped at cooldown_s, from the latest failure
  });

  it('doubles at each failed trial up to cooldown_s, and an answer starts over at the first window', () => {
    const service = cooldown(30);
    service.failed('laya', Timeout);
    const windows: number[] = [];
    for (let i = 0; i < 5; i++) {
      service.advance(service.remainingMs('laya'));
      expect(service.admit('laya').trial).toBe(true);
      service.failed('laya', Timeout);
      windows.push(service.remainingMs('laya'));
    }
    expect(windows).toEqual([W2, W3, CAP, CAP, CAP]);
    service.advance(CAP);
    expect(service.admit('laya').trial).toBe(true);
    service.succeeded('laya');
    service.failed('laya', Timeout);
    expect(service.remainingMs('laya')).toBe(W1);
  });
});

// The half-open trial after a window must never leak: a trial that ends without a verdict on the engine hands
// it back, so the next call is the trial at once rather than the engine being skipped for a whole window more.
describe('CooldownService trial slot', () => {
  it('is handed back by release(): the next call takes the trial at once, at the same step of backoff', () => {
    const service = cooldown(30);
    service.failed('laya', Timeout);
    service.advance(W1);
    expect(service.admit('laya', 5_000)).toEqual({ remainingMs: 0, trial: true });
    expect(service.admit('laya').remainingMs).toBe(5_000); // held for the trial's own budget
    service.release('laya');
    expect(service.admit('laya')).toEqual({ remainingMs: 0, trial: true });
    service.failed('laya', Timeout);
    expect(service.remainingMs('laya')).toBe(W2);
  });

  it('ignores a release by a call that does not hold the trial', () => {
    const service = cooldown(30);
    service.failed('laya', Timeout);
    service.release('laya');
    expect(service.remainingMs('laya')).toBe(W1);
    service.succeeded('laya');
    service.release('laya');
    expect(service.remainingMs('laya')).toBe(0);
  });

  it('tells its listeners which record changed', () => {
    const service = cooldown(30);
    const seen: string[] = [];
    const stop = service.onChange((key) => seen.push(key));
    service.failed('a', Timeout);
    service.succeeded('a');
    stop();
    service.failed('b', Timeout);
    expect(seen).toEqual(['a', 'a']);
  });
});

describe('CooldownFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'system1-cooldown-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads back what it wrote', () => {
    const file = path.join(dir, 'cooldown.json');
    const store = new CooldownFile(file);
    const entries = { laya: { failures: 0, until: 1_700_000_030_000 }, ollama: { failures: 2, until: 0 } };
    store.write(entries);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(entries);
    expect(new CooldownFile(file).read()).toEqual(entries);
  });

  it('creates the directory it writes in', () => {
    const file = path.join(dir, 'not', 'yet', 'cooldown.json');
    new CooldownFile(file).write({ laya: { failures: 1, until: 0 } });
    expect(new CooldownFile(file).read()).toEqual({ laya: { failures: 1, until: 0 } });
  });

  it('leaves no staging file behind', () => {
    const file = path.join(dir, 'cooldown.json');
    new CooldownFile(file).write({ laya: { failures: 0, until: 5 } });
    new CooldownFile(file).write({ laya: { failures: 0, until: 6 } });
    expect(readdirSync(dir)).toEqual(['cooldown.json']);
  });

  fifoIt('reads a FIFO planted as the file as no cooldown, without waiting on it', () => {
    const file = makeFifo(dir, 'cooldown.json');
    // If the read regresses to a blocking one, this writer feeds it a cooldown and the assertion fails.
    const writer = feedFifo(file, JSON.stringify({ laya: { failures: 1, until: 9_999_999_999_999 } }));
    try {
      expect(new CooldownFile(file).read()).toEqual({});
    } finally {
      writer.stop();
    }
  });

  it('reads a missing file as no cooldown', () => {
    expect(new CooldownFile(path.join(dir, 'missing.json')).read()).toEqual({});
  });

  it.each([
    ['not JSON', '{"laya": {"failures": 0, "until": 17'],
    ['empty', ''],
    ['an array', '[1, 2, 3]'],
    ['null', 'null'],
    ['a number', '42'],
  ])('reads a corrupt file (%s) as no cooldown', (_name, text) => {
    const file = path.join(dir, 'cooldown.json');
    writeFileSync(file, text);
    expect(new CooldownFile(file).read()).toEqual({});
  });

  it('drops entries of the wrong shape and keeps the good ones', () => {
    const file = path.join(dir, 'cooldown.json');
    writeFileSync(
      file,
      JSON.stringify({
        good: { failures: 1, until: 2 },
        text: { failures: '1', until: 2 },
        missing: { until: 2 },
        flat: 7,
        nulls: null,
      }),
    );
    expect(new CooldownFile(file).read()).toEqual({ good: { failures: 1, until: 2 } });
  });

  it('does not let a cooldown file pollute Object.prototype', () => {
    const file = path.join(dir, 'cooldown.json');
    writeFileSync(file, '{"__proto__": {"failures": 0, "until": 99}, "laya": {"failures": 0, "until": 1}}');
    const entries = new CooldownFile(file).read();
    expect(({} as Record<string, unknown>).failures).toBeUndefined();
    expect(entries.laya).toEqual({ failures: 0, until: 1 });
  });

  it('does not throw when it cannot write (a path under a file)', () => {
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const underFile = new CooldownFile(path.join(blocker, 'cooldown.json'));
    expect(() => underFile.write({ laya: { failures: 0, until: 1 } })).not.toThrow();
    expect(underFile.read()).toEqual({});
  });

  // A directory no one may create in, root included (CI runs as root, and chmod 0o500 does not stop root).
  (process.platform === 'linux' ? it : it.skip)(
    'does not throw when it cannot write (a directory under /proc, unwritable even for root)',
    () => {
      const store = new CooldownFile(path.join('/proc', `system1-cooldown-${process.pid}`, 'cooldown.json'));
      expect(() => store.write({ laya: { failures: 0, until: 1 } })).not.toThrow();
      expect(store.read()).toEqual({});
    },
  );

  it('keeps the trial mark and the step of backoff, so a hook process whose trial fails cools the engine again at once, for longer', () => {
    const file = path.join(dir, 'cooldown.json');
    const first = cooldown(30, new CooldownFile(file));
    first.failed('laya', Timeout);
    first.advance(W1);
    expect(first.remainingMs('laya')).toBe(0); // this prompt's hook takes the trial ...
    const next = cooldown(30, new CooldownFile(file)); // ... and records its failure 2 s later
    next.clock = first.clock + 2_000;
    next.failed('laya', Unavailable);
    const after = cooldown(30, new CooldownFile(file));
    after.clock = next.clock;
    expect(after.peekMs('laya')).toBe(W2);
    after.advance(W2);
    expect(after.admit('laya').trial).toBe(true);
    const last = cooldown(30, new CooldownFile(file));
    last.clock = after.clock;
    last.failed('laya', Timeout);
    expect(new CooldownFile(file).read().laya).toEqual({ failures: 0, until: last.clock + W3, level: 3 });
  });

  it('backs a CooldownService across instances (a hook process per prompt)', () => {
    const file = path.join(dir, 'cooldown.json');
    const first = cooldown(30, new CooldownFile(file));
    first.failed('laya', Timeout);
    const second = cooldown(30, new CooldownFile(file));
    second.clock = first.clock + 1_000;
    expect(second.remainingMs('laya')).toBe(W1 - 1_000);
    second.succeeded('laya');
    expect(cooldown(30, new CooldownFile(file)).remainingMs('laya')).toBe(0);
  });
});
