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

/** The pause switch's name in the store; read at most this often beside the messages. */
const PAUSE_SWITCH = 'paused';
const SWITCH_POLL_MS = 1000;
/** How long `toggle` waits for its connection to the store before saying the team did not get the switch. */
const SWITCH_WRITE_WAIT_MS = 3000;

/**
 * The pause switch is a file in the install dir, so `system1 toggle` in one process pauses every running
 * server from its next call, with no restart.
 */
@Injectable()
export class PauseState {
  readonly file: string;
  /** The deployment's shared state (`[state] url`), where the switches live beside the file; in-process without. */
  readonly store: SharedState;

  /** The switch as the store last said (message or poll); undefined: not known, or the store is down. */
  private teamPaused?: boolean;
  /** What this process last switched to, for the store (see {@link settled}). */
  private switched?: boolean;

  constructor(@Inject(system1Config.KEY) config: LoadedConfig, shared?: SharedState) {
    this.file = path.join(config.installDir, 'paused');
    this.store = shared ?? IN_PROCESS;
    if (this.store !== IN_PROCESS) this.follow(this.store);
  }

  private seen?: { paused: boolean; at: number };

  isPaused(): boolean {
    // With a store, the team's switch while it answers; the file when it never said or is down.
    if (this.teamPaused !== undefined && this.store.up()) return this.teamPaused;
    const now = performance.now();
    if (this.seen === undefined || now - this.seen.at >= PAUSE_SEEN_WITHIN_MS)
      this.seen = { paused: existsSync(this.file), at: now };
    return this.seen.paused;
  }

  pause(): void {
    this.seen = undefined;
    this.switched = true;
    ensureDir(path.dirname(this.file));
    writeFileSync(this.file, `paused at ${new Date().toISOString()}\n`);
  }

  resume(): void {
    this.seen = undefined;
    this.switched = false;
    rmSync(this.file, { force: true });
  }

  /**
   * Resolves once every running server sees the switch just made. With a store, the switch is written there
   * too (every process hears it at once, and polls it each second): the answer is why it is not, when it is not.
   */
  async settled(): Promise<string | undefined> {
    let unshared: string | undefined;
    if (this.store !== IN_PROCESS && this.switched !== undefined) {
      const written =
        (await this.store.ready(SWITCH_WRITE_WAIT_MS)) &&
        (await this.store.setSwitch(PAUSE_SWITCH, this.switched ? '1' : '0'));
      if (written) this.teamPaused = this.switched;
      else
        unshared = `the state store ${this.store.address} did not take the switch: only this machine's servers see it`;
    }
    await waitFully(PAUSE_SEEN_WITHIN_MS);
    return unshared;
  }

  /** The team's switch: heard at once from the store, and read again each second in case a message was missed. */
  private follow(store: SharedState): void {
    store.onMessage((message) => {
      if (message.kind === 'switch' && message.name === PAUSE_SWITCH) this.teamPaused = message.value === '1';
    });
    const poll = setInterval(() => {
      void store.switchValue(PAUSE_SWITCH).then((value) => {
        if (value === '1' || value === '0') this.teamPaused = value === '1';
      });
    }, SWITCH_POLL_MS);
    poll.unref();
  }
}
