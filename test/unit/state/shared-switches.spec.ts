/**
 * The pause switch through a real redis-server: `toggle off` in one process (its own install dir) reaches a
 * server with another install dir, no shared filesystem; with the store down each goes by its own file again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PauseState } from '../../../src/decisions/pipeline/pause-state.service';
import type { SharedState } from '../../../src/state/shared-state';
import { eventually } from '../../helpers/eventually';
import { describeUnless } from '../../helpers/skip-unless';
import { NO_REDIS, openState, type RunningRedis, startRedis } from '../../helpers/redis-store';

describeUnless(NO_REDIS)('the pause switch shared through the store (real redis-server)', () => {
  let redis: RunningRedis;
  let states: SharedState[] = [];
  let dirs: string[] = [];
  let prefix = '';
  beforeEach(() => {
    prefix = `switch-${Date.now()}:`;
  });

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  afterEach(async () => {
    await Promise.all(states.map((state) => state.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A process of its own, with an install dir of its own. */
  const processWith = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'system1-switch-'));
    dirs.push(dir);
    const { state, config } = openState(`[state]\nurl = "redis://127.0.0.1:${redis.port}"\nprefix = "${prefix}"\n`, {
      SYSTEM1_INSTALL_DIR: dir,
    });
    states.push(state);
    return new PauseState(config, state);
  };

  it('toggle off in one process pauses a server that shares no folder with it, and on resumes it', async () => {
    states = [];
    dirs = [];
    const server = processWith();
    const toggle = processWith();
    await eventually(() => states.every((state) => state.up()), 'both reach the store');
    expect(server.isPaused()).toBe(false);
    toggle.pause();
    expect(await toggle.settled()).toBeUndefined();
    await eventually(() => server.isPaused(), 'the server is paused');
    toggle.resume();
    expect(await toggle.settled()).toBeUndefined();
    await eventually(() => !server.isPaused(), 'the server is on again');
  });

  it('says the team did not get the switch when the store is gone, and each process goes by its own file', async () => {
    states = [];
    dirs = [];
    const server = processWith();
    const toggle = processWith();
    await eventually(() => states.every((state) => state.up()), 'both reach the store');
    await redis.kill();
    await eventually(() => states.every((state) => !state.up()), 'both see it down');
    toggle.pause();
    expect(await toggle.settled()).toMatch(/did not take the switch/);
    expect(toggle.isPaused()).toBe(true);
    expect(server.isPaused()).toBe(false);
    await redis.restart();
  });
});
