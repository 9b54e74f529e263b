/**
 * The pause switch as running servers see it: a switch made in this process at once, one made by another
 * process (the file written or removed under it) within PAUSE_SEEN_WITHIN_MS, and `settled` waits that long,
 * so a call that starts after `system1 toggle` returns always sees the new state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LoadedConfig } from '../../../src/config/config.loader';
import { PAUSE_SEEN_WITHIN_MS, PauseState } from '../../../src/decisions/pipeline/pause-state.service';

let installDir: string;
beforeEach(() => (installDir = mkdtempSync(path.join(tmpdir(), 'system1-pause-'))));
afterEach(() => rmSync(installDir, { recursive: true, force: true }));
const stateIn = (dir: string) => new PauseState({ installDir: dir } as LoadedConfig);

it('sees a switch made in this process at once', () => {
  const pause = stateIn(installDir);
  expect(pause.isPaused()).toBe(false);
  pause.pause();
  expect(pause.isPaused()).toBe(true);
  pause.resume();
  expect(pause.isPaused()).toBe(false);
});

it('sees a switch made by another process once `settled` has passed', async () => {
  const server = stateIn(installDir);
  const toggle = stateIn(installDir);
  expect(server.isPaused()).toBe(false);
  writeFileSync(toggle.file, 'paused by another process\n');
  await toggle.settled();
  expect(server.isPaused()).toBe(true);
  rmSync(toggle.file);
  await toggle.settled();
  expect(server.isPaused()).toBe(false);
});

it('settled waits the whole window, by the clock the servers read', async () => {
  const started = performance.now();
  await stateIn(installDir).settled();
  expect(performance.now() - started).toBeGreaterThanOrEqual(PAUSE_SEEN_WITHIN_MS);
});
