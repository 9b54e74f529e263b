/**
 * The pause switch through a real redis-server: `toggle off` in one process (its own install dir) reaches a
 * server with another install dir, no shared filesystem; with the store down each goes by its own file again.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CalibrationService } from '../../../src/calibration/calibration.service';
import { saveFits } from '../../../src/calibration/fit-store';
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

describeUnless(NO_REDIS)('fits shared through the store (real redis-server)', () => {
  let redis: RunningRedis;
  const states: SharedState[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(states.map((state) => state.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await redis?.stop();
  });

  it('calibrate --write on one machine reaches another machine’s fits, no shared folder', async () => {
    const machines = [0, 1].map(() => {
      const dir = mkdtempSync(path.join(tmpdir(), 'system1-fits-'));
      dirs.push(dir);
      const { state, config } = openState(`[state]\nurl = "redis://127.0.0.1:${redis.port}"\n`, {
        SYSTEM1_INSTALL_DIR: dir,
      });
      states.push(state);
      return new CalibrationService(config, state);
    });
    await eventually(() => states.every((state) => state.up()), 'both reach the store');
    const fits = machines[1].fitsInForce();
    const fit = {
      provider: 'laya',
      model: null,
      question: 'boolean',
      option_count: 2,
      temperature: 2,
      n: 50,
      at_bound: false,
    };
    saveFits(machines[0].userFile, [fit as never]);
    expect(await machines[0].shareUserFits()).toBeUndefined();
    await eventually(() => existsSync(machines[1].userFile), 'the other machine has the fits file');
    expect(JSON.parse(readFileSync(machines[1].userFile, 'utf8')).fits).toEqual([expect.objectContaining(fit)]);
    await eventually(() => machines[1].fitsInForce() !== fits, 'the other machine uses them');
  });
});
