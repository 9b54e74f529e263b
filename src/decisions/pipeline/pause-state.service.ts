import { Inject, Injectable } from '@nestjs/common';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LoadedConfig } from '../../config/config.loader';
import { waitFully } from '../../common/full-wait';
import { ensureDir } from '../../config/ensure-dir';
import { system1Config } from '../../config/system1.config';
import { IN_PROCESS, type SharedState } from '../../state/shared-state';

/**
 * How long another process's switch may go unseen. A stat per decision was 3-4% of a busy server's time,
 * so a server looks at the file at most this often; `system1 toggle` waits this long after switching
 * (`settled`), so every call that starts after it returns sees the new state.
 */
export const PAUSE_SEEN_WITHIN_MS = 100;

/**
 * The pause switch is a file in the install dir, so `system1 toggle` in one process pauses every running
 * server from its next call, with no restart.
 */
@Injectable()
export class PauseState {
  readonly file: string;
  /** The deployment's shared state (`[state] url`), where the switches live beside the file; in-process without. */
  readonly store: SharedState;

  constructor(@Inject(system1Config.KEY) config: LoadedConfig, shared?: SharedState) {
    this.file = path.join(config.installDir, 'paused');
    this.store = shared ?? IN_PROCESS;
  }

  private seen?: { paused: boolean; at: number };

  isPaused(): boolean {
    const now = performance.now();
    if (this.seen === undefined || now - this.seen.at >= PAUSE_SEEN_WITHIN_MS)
      this.seen = { paused: existsSync(this.file), at: now };
    return this.seen.paused;
  }

  pause(): void {
    this.seen = undefined;
    ensureDir(path.dirname(this.file));
    writeFileSync(this.file, `paused at ${new Date().toISOString()}\n`);
  }

  resume(): void {
    this.seen = undefined;
    rmSync(this.file, { force: true });
  }

  /** Resolves once every running server sees the switch just made. */
  settled(): Promise<void> {
    return waitFully(PAUSE_SEEN_WITHIN_MS);
  }
}
