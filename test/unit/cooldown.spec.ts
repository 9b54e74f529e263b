/** CooldownService on a clock the test moves, and the CooldownFile store the routing hook keeps it in. */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LoadedConfig } from '../../src/config/config.loader';
import { CooldownFile } from '../../src/decisions/cooldown-file';
import { feedFifo, fifoIt, makeFifo } from '../helpers/fifo';
import { CooldownService, FAILURES_BEFORE_COOLDOWN, type CooldownStore } from '../../src/decisions/cooldown.service';
import { DecisionErrorCode } from '../../src/decisions/decision-error';

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

describe('CooldownService', () => {
  it('needs three failures in a row to cool (the constant the pipeline documents)', () => {
    expect(FAILURES_BEFORE_COOLDOWN).toBe(3);
  });

  it('starts at no cooldown for a provider it never heard of', () => {
    const service = cooldown();
    expect(service.remainingMs('laya')).toBe(0);
    service.succeeded('laya'); // nothing to forget: no throw, still nothing
    expect(service.remainingMs('laya')).toBe(0);
  });

  it('starts a cooldown of cooldown_s at a single timeout, for that provider only', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(30_000);
    expect(service.remainingMs('mock')).toBe(0);
    service.advance(12_500);
    expect(service.remainingMs('slow')).toBe(17_500);
  });

  it('takes a fractional cooldown_s in milliseconds', () => {
    const service = cooldown(0.25);
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(250);
  });

  it('does not cool at two errors in a row, and cools at the third', () => {
    const service = cooldown(30);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', ProviderError);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', InvalidResponse);
    expect(service.remainingMs('laya')).toBe(30_000);
  });

  it('counts the third error from the moment it happened, not from the first', () => {
    const service = cooldown(30);
    service.failed('laya', Unavailable);
    service.advance(5_000);
    service.failed('laya', Unavailable);
    service.advance(5_000);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(30_000);
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
    expect(service.remainingMs('laya')).toBe(30_000);
  });

  it('ends a running cooldown at a success (a health probe that succeeded)', () => {
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
    expect(service.remainingMs('a')).toBe(30_000);
    expect(service.remainingMs('b')).toBe(0);
  });

  it('is over when the window is over (one call may try again), and a new timeout starts a new window', () => {
    const service = cooldown(30);
    service.failed('slow', Timeout);
    service.advance(29_999);
    expect(service.remainingMs('slow')).toBe(1);
    service.advance(1);
    expect(service.remainingMs('slow')).toBe(0);
    service.advance(60_000);
    expect(service.remainingMs('slow')).toBe(0);
    // The call that tried again timed out too: a whole new window from now.
    service.failed('slow', Timeout);
    expect(service.remainingMs('slow')).toBe(30_000);
  });

  it('clamps a window that ends further ahead than cooldown_s (the clock stepped back) and ends it on time', () => {
    let entries: Record<string, { failures: number; until: number }> = {};
    const store: CooldownStore = { read: () => entries, write: (next) => (entries = next) };
    const service = cooldown(30, store);
    service.failed('slow', Timeout);
    service.advance(-3_600_000);
    expect(service.remainingMs('slow')).toBe(30_000);
    expect(entries.slow.until).toBe(service.clock + 30_000);
    service.advance(30_000);
    expect(service.remainingMs('slow')).toBe(0);
  });

  it('after a window started by three errors, three new errors start a new one', () => {
    const service = cooldown(30);
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    service.advance(30_000);
    expect(service.remainingMs('laya')).toBe(0);
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(30_000);
  });

  // The count restarts from zero whenever a cooldown starts, so the one call that tries again after a
  // window and fails with an error (not a timeout) does not cool the provider again: it takes three.
  it('lets the trial call after a window fail with an error without cooling again (the count restarts at each window)', () => {
    const service = cooldown(30);
    for (let i = 0; i < 3; i++) service.failed('laya', Unavailable);
    service.advance(30_000);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0);
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

  it('never counts a cancelled call, however many', () => {
    const service = cooldown(30);
    for (let i = 0; i < 10; i++) service.failed('laya', Cancelled);
    expect(service.remainingMs('laya')).toBe(0);
    // Nor does a cancel in between add to the count of real errors.
    service.failed('laya', Unavailable);
    service.failed('laya', Cancelled);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(0);
    service.failed('laya', Unavailable);
    expect(service.remainingMs('laya')).toBe(30_000);
  });

  it('is safe with provider names like Object.prototype members', () => {
    const service = cooldown(30);
    expect(service.remainingMs('constructor')).toBe(0);
    expect(service.remainingMs('__proto__')).toBe(0);
    service.failed('toString', Timeout);
    expect(service.remainingMs('toString')).toBe(30_000);
    expect(service.remainingMs('constructor')).toBe(0);
  });

  it('keeps its record in the store it is given, so a second service over the same store sees it', () => {
    let saved: ReturnType<CooldownStore['read']> = {};
    const store: CooldownStore = { read: () => saved, write: (entries) => (saved = entries) };
    const first = cooldown(30, store);
    first.failed('slow', Timeout);
    expect(saved.slow).toEqual({ failures: 0, until: first.clock + 30_000 });
    const second = cooldown(30, store);
    second.clock = first.clock + 10_000;
    expect(second.remainingMs('slow')).toBe(20_000);
  });
});

describe('CooldownFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'system1-cooldown-'));
  });
  afterEach(() => {
    chmodSync(dir, 0o700);
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
      JSON.stringify({ good: { failures: 1, until: 2 }, text: { failures: '1', until: 2 }, missing: { until: 2 }, flat: 7, nulls: null }),
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

  it('does not throw when it cannot write (a path under a file, a read-only dir)', () => {
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const underFile = new CooldownFile(path.join(blocker, 'cooldown.json'));
    expect(() => underFile.write({ laya: { failures: 0, until: 1 } })).not.toThrow();
    expect(underFile.read()).toEqual({});

    const readOnly = path.join(dir, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o500);
    const store = new CooldownFile(path.join(readOnly, 'cooldown.json'));
    expect(() => store.write({ laya: { failures: 0, until: 1 } })).not.toThrow();
    chmodSync(readOnly, 0o700);
  });

  it('backs a CooldownService across instances (a hook process per prompt)', () => {
    const file = path.join(dir, 'cooldown.json');
    const first = cooldown(30, new CooldownFile(file));
    first.failed('laya', Timeout);
    const second = cooldown(30, new CooldownFile(file));
    second.clock = first.clock + 1_000;
    expect(second.remainingMs('laya')).toBe(29_000);
    second.succeeded('laya');
    expect(cooldown(30, new CooldownFile(file)).remainingMs('laya')).toBe(0);
  });
});
