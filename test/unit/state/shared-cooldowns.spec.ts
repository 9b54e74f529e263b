/**
 * Cooldowns mirrored through a real redis-server: three processes' CooldownServices, one engine. A timeout seen by
 * one cools the engine for all; when the window ends exactly one of them gets the trial; its answer brings the
 * engine back for all. A slot held by a process that died expires by itself.
 */
import { CooldownService } from '../../../src/decisions/pools/cooldown.service';
import { DecisionErrorCode } from '../../../src/decisions/errors/decision-error';
import type { SharedState } from '../../../src/state/shared-state';
import { eventually } from '../../helpers/eventually';
import { describeUnless } from '../../helpers/skip-unless';
import { NO_REDIS, openState, type RunningRedis, startRedis } from '../../helpers/redis-store';

/** A CooldownService whose clock the test moves (all three share it, as synchronised machines would). */
class ClockedCooldowns extends CooldownService {
  static clock = 1_000_000;
  protected override now(): number {
    return ClockedCooldowns.clock;
  }
}

describeUnless(NO_REDIS)('cooldowns shared through the store (real redis-server)', () => {
  let redis: RunningRedis;
  let states: SharedState[] = [];
  let replicas: CooldownService[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  beforeEach(async () => {
    const toml = `[gateway]\ncooldown_s = 8\ntimeout_s = 1\n[state]\nurl = "redis://127.0.0.1:${redis.port}"\nprefix = "cd-${Date.now()}:"\n`;
    const opened = [0, 1, 2].map(() => openState(toml));
    states = opened.map(({ state }) => state);
    replicas = opened.map(({ state, config }) => new ClockedCooldowns(config, undefined, state));
    await eventually(() => states.every((state) => state.up()), 'every replica reaches the store');
    // The listeners subscribe on their own connection: a first message proves they hear each other.
    replicas[0].failed('warmup', DecisionErrorCode.Timeout);
    await eventually(() => replicas.every((replica) => replica.state('warmup').state === 'cooling'), 'subscribed');
  });
  afterEach(() => Promise.all(states.map((state) => state.close())));

  it('a timeout on one replica cools the engine on all three, with the same window', async () => {
    expect(replicas.map((replica) => replica.admit('laya').remainingMs)).toEqual([0, 0, 0]);
    replicas[0].failed('laya', DecisionErrorCode.Timeout);
    await eventually(() => replicas.every((replica) => replica.state('laya').state === 'cooling'), 'all cooling');
    expect(replicas.map((replica) => replica.admit('laya').remainingMs)).toEqual([1000, 1000, 1000]);
  });

  it('gives the team one trial when the window ends, and its answer brings the engine back for all', async () => {
    replicas[1].failed('laya', DecisionErrorCode.Timeout);
    await eventually(() => replicas.every((replica) => replica.state('laya').state === 'cooling'), 'all cooling');
    ClockedCooldowns.clock += 1001;
    // Each asks, again and again; the store gives the slot to one, and only that one ever gets the trial.
    let trials = 0;
    let winner: CooldownService | undefined;
    await eventually(() => {
      for (const replica of replicas) {
        if (replica.admit('laya').trial) {
          trials++;
          winner = replica;
        }
      }
      return winner !== undefined;
    }, 'one replica holds the trial');
    for (let round = 0; round < 20; round++) {
      for (const replica of replicas) if (replica.admit('laya').trial) trials++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(trials).toBe(1);
    const others = replicas.filter((replica) => replica !== winner);
    expect(others.map((replica) => replica.admit('laya').remainingMs > 0)).toEqual([true, true]);
    winner!.succeeded('laya');
    await eventually(() => replicas.every((replica) => replica.state('laya').state === 'ok'), 'back for all');
    expect(replicas.map((replica) => replica.admit('laya'))).toEqual(Array(3).fill({ remainingMs: 0, trial: false }));
  });

  it('a failed trial cools all three again, doubled', async () => {
    replicas[2].failed('laya', DecisionErrorCode.Timeout);
    await eventually(() => replicas.every((replica) => replica.state('laya').state === 'cooling'), 'all cooling');
    ClockedCooldowns.clock += 1001;
    let winner: CooldownService | undefined;
    await eventually(() => (winner = replicas.find((replica) => replica.admit('laya').trial)) !== undefined, 'a trial');
    winner!.failed('laya', DecisionErrorCode.Timeout);
    await eventually(
      () => replicas.every((replica) => replica.state('laya').level === 2 && replica.state('laya').state === 'cooling'),
      'all cooling at the second step',
    );
  });
});
