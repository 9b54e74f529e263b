/**
 * serve-http's per-caller rate through the shared store: three replicas (three CallerAccess, each with its own
 * limiter) draw from one bucket, so a caller of burst 10 gets 10 decisions across all of them, with Retry-After;
 * another caller keeps its own; with the store down, each replica holds the caller to the full limit on its own.
 */
import { CallerAccess } from '../../../src/http-server/callers/caller-access';
import { CallerPolicies } from '../../../src/http-server/callers/caller-policy';
import { CallerTokens } from '../../../src/http-server/callers/caller-tokens';
import { RateLimiter } from '../../../src/http-server/callers/rate-limiter';
import type { SharedState } from '../../../src/state/shared-state';
import { eventually } from '../../helpers/eventually';
import { describeUnless } from '../../helpers/skip-unless';
import { NO_REDIS, openState, type RunningRedis, startRedis } from '../../helpers/redis-store';

describeUnless(NO_REDIS)('per-caller rate limits in the shared store (real redis-server)', () => {
  let redis: RunningRedis;
  let states: SharedState[] = [];
  let replicas: CallerAccess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  beforeEach(async () => {
    const toml =
      `[state]\nurl = "redis://127.0.0.1:${redis.port}"\nprefix = "rate-${Date.now()}:"\n` +
      '[http]\nrate_per_minute = 60\nburst = 10\n';
    const env = { SYSTEM1_HTTP_TOKEN_ALICE: 'alice-token-123456', SYSTEM1_HTTP_TOKEN_BOB: 'bob-token-1234567' };
    const opened = [0, 1, 2].map(() => openState(toml, env));
    states = opened.map(({ state }) => state);
    const config = opened[0].config;
    replicas = states.map(
      (state) =>
        new CallerAccess(
          CallerTokens.fromEnv(env).tokens,
          new CallerPolicies(config.http, config.httpCallers),
          new RateLimiter(() => performance.now(), state),
        ),
    );
    await eventually(() => states.every((state) => state.up()), 'every replica reaches the store');
  });
  afterEach(() => Promise.all(states.map((state) => state.close())));

  const caller = async (access: CallerAccess, token: string) => {
    const identified = await access.identify({ headersDistinct: { authorization: [`Bearer ${token}`] } } as never);
    if (!('name' in identified)) throw new Error('not identified');
    return identified;
  };

  it('gives a caller of burst 10 exactly 10 of 40 decisions across three replicas, the rest 429 with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const access = replicas[i % 3];
        return access.admit(await caller(access, 'alice-token-123456'), 'system1_decide');
      }),
    );
    const refused = answers.filter((answer) => answer !== undefined);
    expect(answers.length - refused.length).toBe(10);
    expect(refused).toHaveLength(30);
    for (const refusal of refused) {
      expect(refusal!.status).toBe(429);
      expect(Number(refusal!.headers!['retry-after'])).toBeGreaterThanOrEqual(0);
    }
    // Another caller of the same policy is not affected.
    const bob = await caller(replicas[1], 'bob-token-1234567');
    expect(await replicas[1].admit(bob, 'system1_ask')).toBeUndefined();
  });

  it('holds each replica to the full limit on its own while the store is down, and shares again after', async () => {
    await redis.kill();
    await eventually(() => states.every((state) => !state.up()), 'every replica sees the store down');
    const perReplica = await Promise.all(
      replicas.map(async (access) => {
        const alice = await caller(access, 'alice-token-123456');
        const answers = await Promise.all(Array.from({ length: 15 }, () => access.admit(alice, 'system1_decide')));
        return answers.filter((answer) => answer === undefined).length;
      }),
    );
    expect(perReplica).toEqual([10, 10, 10]);
    await redis.restart();
    await eventually(() => states.every((state) => state.up()), 'every replica shares again');
    const carol = await Promise.all(
      Array.from({ length: 12 }, async (_, i) =>
        replicas[i % 3].admit(await caller(replicas[i % 3], 'bob-token-1234567'), 'system1_decide'),
      ),
    );
    expect(carol.filter((answer) => answer === undefined)).toHaveLength(10);
  });
});
