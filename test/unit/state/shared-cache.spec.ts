/**
 * The decision cache shared through a real redis-server: a reply kept by one process answers the same request
 * on another, under the same caller scope (another scope misses), with the TTL in the store and the byte bound
 * per entry; with the store down, each process keeps its own cache.
 */
import { DecisionCache, type CachedReply } from '../../../src/decisions/pipeline/decision-cache.service';
import type { DecisionRequest, QuestionOutcome } from '../../../src/decisions/questions/decision.types';
import type { System1Provider } from '../../../src/decisions/registry/provider.interface';
import type { SharedState } from '../../../src/state/shared-state';
import { eventually } from '../../helpers/eventually';
import { describeUnless } from '../../helpers/skip-unless';
import { NO_REDIS, openState, type RunningRedis, startRedis } from '../../helpers/redis-store';

const REQUEST = { questions: [{ id: 'q', type: 'boolean', question: 'Ship it?' }] } as unknown as DecisionRequest;
const REPLY = {
  reply: { answers: { q: { value: true } } },
  stray: {},
  model: 'm',
  notes: [],
} as unknown as CachedReply;
const ANSWERS = { q: { status: 'ok' } } as unknown as Record<string, QuestionOutcome>;
const REF = { provider: 'laya' };

describeUnless(NO_REDIS)('the decision cache shared through the store (real redis-server)', () => {
  let redis: RunningRedis;
  let states: SharedState[] = [];
  let caches: DecisionCache[] = [];
  let prefix = '';

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  beforeEach(async () => {
    prefix = `cache-${Date.now()}:`;
    const toml =
      `[gateway]\ncache_ttl_s = 60\ncache_max_bytes = 65536\n` +
      `[state]\nurl = "redis://127.0.0.1:${redis.port}"\nprefix = "${prefix}"\n`;
    const opened = [0, 1].map(() => openState(toml));
    states = opened.map(({ state }) => state);
    caches = opened.map(({ state, config }) => new DecisionCache(config, state));
    await eventually(() => states.every((state) => state.up()), 'both reach the store');
  });
  afterEach(() => Promise.all(states.map((state) => state.close())));

  // Each process has its own engine instance: the shared key names the engine by its configured name.
  const keyOn = (cache: DecisionCache, scope?: string) =>
    cache.key({} as System1Provider, REF, REQUEST, Math.floor(Math.random() * 5), scope)!;

  it('answers on one process what another kept, in the same scope only, with the TTL in the store', async () => {
    const key = keyOn(caches[0], 'alice');
    expect(keyOn(caches[1], 'alice')).toBe(key);
    caches[0].keep(key, REPLY, ANSWERS, 'alice');
    let found: CachedReply | undefined;
    await eventually(() => {
      void caches[1].fetchShared(key).then((reply) => (found = reply));
      return found !== undefined;
    }, 'the other process finds the reply');
    expect(found).toEqual(REPLY);
    expect(await caches[1].fetchShared(keyOn(caches[1], 'bob'))).toBeUndefined();
    const ttl = Number(await command(redis.port, ['PTTL', `${prefix}cache:${key}`]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('keeps no entry over the byte bound in the store either', async () => {
    const big = { ...REPLY, notes: ['x'.repeat(10_000)] } as CachedReply;
    const key = keyOn(caches[0]);
    caches[0].keep(key, big, ANSWERS);
    caches[0].keep(keyOn(caches[0], 'small'), REPLY, ANSWERS, 'small');
    await eventually(() => true, 'settle');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await command(redis.port, ['EXISTS', `${prefix}cache:${key}`])).toBe(0);
    expect(await command(redis.port, ['EXISTS', `${prefix}cache:${keyOn(caches[0], 'small')}`])).toBe(1);
  });

  it('reads a stray value under the key as a miss, never a crash', async () => {
    const key = keyOn(caches[0]);
    await command(redis.port, ['SET', `${prefix}cache:${key}`, '{not json']);
    expect(await caches[1].fetchShared(key)).toBeUndefined();
  });
});

async function command(port: number, args: string[]): Promise<unknown> {
  const { Redis } = await import('ioredis');
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  try {
    await client.connect();
    return await client.call(args[0], ...args.slice(1));
  } finally {
    client.disconnect();
  }
}
