/**
 * The store against a real redis-server on a free loopback port: up once it answers, a store that is killed,
 * slow or answering garbage counts as down (one log line, calls answer "use your own state" and never throw),
 * and it comes back by itself. Passwords never reach a log line.
 */
import type { SharedState } from '../../../src/state/shared-state';
import { eventually } from '../../helpers/eventually';
import { describeUnless } from '../../helpers/skip-unless';
import { NO_REDIS, openState, type RunningRedis, startRedis } from '../../helpers/redis-store';

const PASSWORD = 'state-pass-7f3a9c';

describeUnless(NO_REDIS)('the shared state store (real redis-server)', () => {
  let redis: RunningRedis;
  const opened: SharedState[] = [];
  const open = (toml: string, env: Record<string, string> = {}) => {
    const result = openState(toml, env);
    opened.push(result.state);
    return result;
  };

  beforeAll(async () => {
    redis = await startRedis({ args: ['--requirepass', PASSWORD, '--enable-debug-command', 'yes'] });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((state) => state.close()));
  });
  afterAll(() => redis?.stop());

  const url = () => `[state]\nurl = "redis://127.0.0.1:${redis.port}"\n`;
  const withPassword = { SYSTEM1_STATE_PASSWORD: PASSWORD };

  it('connects with SYSTEM1_STATE_PASSWORD, logs one line without the password, and shares a bucket', async () => {
    const { state, lines } = open(url(), withPassword);
    await eventually(() => state.up(), 'the store is up');
    expect(lines).toEqual([expect.stringMatching(/^log: state store redis:\/\/127\.0\.0\.1:\d+ up/)]);
    const other = open(url(), withPassword).state;
    await eventually(() => other.up(), 'the second process is up');
    // Two processes, one bucket of burst 2: the third decision waits, whichever process asks.
    expect(await state.take('alice', 60, 2)).toBe(0);
    expect(await other.take('alice', 60, 2)).toBe(0);
    expect(await state.take('alice', 60, 2)).toBeGreaterThan(0);
    expect(await other.take('bob', 60, 2)).toBe(0);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('with the password in SYSTEM1_STATE_URL too, and a wrong one never counts as up nor shows', async () => {
    const right = open('', { SYSTEM1_STATE_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}` });
    await eventually(() => right.state.up(), 'up with the password in the URL');
    expect(right.lines.join('\n')).not.toContain(PASSWORD);
    const wrong = open(url(), { SYSTEM1_STATE_PASSWORD: 'wrong-pass-1234' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(wrong.state.up()).toBe(false);
    expect(await wrong.state.take('alice', 60, 2)).toBeUndefined();
    expect(wrong.lines.join('\n')).not.toContain('wrong-pass-1234');
  });

  it('keeps keys under its prefix: a second deployment sees none of the first one’s', async () => {
    const a = open(url() + 'prefix = "team-a:"\n', withPassword).state;
    const b = open(url() + 'prefix = "team-b:"\n', withPassword).state;
    await eventually(() => a.up() && b.up(), 'both up');
    a.keep('k1', 'the answer', 60_000);
    expect(await eventuallyValue(() => a.cached('k1'))).toBe('the answer');
    expect(await b.cached('k1')).toBeUndefined();
  });

  it('treats a wrong type under its key as down (one line), never throws, and comes back by itself', async () => {
    const { state, lines } = open(url() + 'prefix = "garbage:"\n', withPassword);
    await eventually(() => state.up(), 'up');
    const raw = open(url() + 'prefix = "garbage:"\n', withPassword).state;
    await eventually(() => raw.up(), 'up');
    // A string where the bucket's hash belongs: what an operator's stray SET would leave.
    expect(await raw.setSwitch('x', 'y')).toBe(true);
    await rawCommand(redis.port, ['SET', 'garbage:rate:alice', 'not a bucket']);
    expect(await state.take('alice', 60, 2)).toBeUndefined();
    expect(state.up()).toBe(false);
    expect(lines.filter((line) => line.startsWith('warn:'))).toEqual([
      expect.stringContaining('a value of the wrong type under our key'),
    ]);
    await eventually(() => state.up(), 'back up after the probe');
    expect(lines.filter((line) => line.startsWith('log:'))).toHaveLength(2);
  });

  it('answers "use your own state" past the deadline while the store is busy', async () => {
    const { state } = open(url() + 'deadline_ms = 20\n', withPassword);
    await eventually(() => state.up(), 'up');
    const sleeping = rawCommand(redis.port, ['DEBUG', 'SLEEP', '0.5']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await state.take('carol', 60, 2)).toBeUndefined();
    expect(state.up()).toBe(false);
    await sleeping;
    await eventually(() => state.up(), 'back up once the store answers again');
  });

  it('goes down when the store is killed (calls answer at once) and back up when it returns', async () => {
    const { state, lines } = open(url(), withPassword);
    await eventually(() => state.up(), 'up');
    await redis.kill();
    await eventually(() => !state.up(), 'down after SIGKILL');
    expect(await state.take('dave', 60, 2)).toBeUndefined();
    expect(await state.cached('anything')).toBeUndefined();
    await redis.restart();
    await eventually(() => state.up(), 'up again after the restart');
    expect(await state.take('dave', 60, 2)).toBe(0);
    expect(lines.map((line) => line.split(' (')[0].replace(/127\.0\.0\.1:\d+/, 'H'))).toEqual([
      'log: state store redis://H up: rate limits, cooldowns, the cache and the switches are shared',
      'warn: state store redis://H down',
      'log: state store redis://H up: rate limits, cooldowns, the cache and the switches are shared',
    ]);
  });
});

/** A value the store holds once the fire-and-forget write landed. */
async function eventuallyValue(read: () => Promise<string | undefined>): Promise<string | undefined> {
  let value: string | undefined;
  for (let i = 0; i < 200 && value === undefined; i++) {
    value = await read();
    if (value === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return value;
}

/** One command on a plain connection (authenticated), for what a test does behind the gateway's back. */
async function rawCommand(port: number, args: string[]): Promise<unknown> {
  const { Redis } = await import('ioredis');
  const client = new Redis({ port, host: '127.0.0.1', password: PASSWORD, lazyConnect: true });
  try {
    await client.connect();
    return await client.call(args[0], ...args.slice(1));
  } finally {
    client.disconnect();
  }
}
