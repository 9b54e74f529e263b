import { renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRecord } from '../common/is-record';
import { FILE_CAPS, readRegularFileSync } from '../common/regular-file';
import { ensureDir } from '../config/ensure-dir';
import type { SharedState } from '../state/shared-state';

/** The fits' switch in the store: the user's calibration.json as `calibrate --write` saved it. */
const FITS_SWITCH = 'fits';
/** Read at most this often beside the messages, so a process that missed one still gets the fits. */
const FITS_POLL_MS = 1000;
/** How long `calibrate --write` waits for its connection to the store. */
const FITS_WRITE_WAIT_MS = 3000;

/**
 * A team's fits without a shared filesystem: `calibrate --write` puts the saved file in the store, and every
 * process with the store writes it into its own install dir's calibration.json when it changes there (heard at
 * once, or read each second), where the calibration service picks it up as if saved on that machine.
 */
export class SharedFits {
  /** The text last taken from (or given to) the store, so an unchanged switch is not written again. */
  private applied?: string;

  constructor(
    private readonly store: SharedState,
    private readonly userFile: string,
  ) {
    store.onMessage((message) => {
      if (message.kind === 'switch' && message.name === FITS_SWITCH) this.take(message.value);
    });
    const poll = setInterval(() => {
      void store.switchValue(FITS_SWITCH).then((value) => typeof value === 'string' && this.take(value));
    }, FITS_POLL_MS);
    poll.unref();
  }

  /** Gives the user's file, just saved, to every process; the answer says why not, when they did not get it. */
  async publish(): Promise<string | undefined> {
    let text: string;
    try {
      text = readRegularFileSync(this.userFile, FILE_CAPS.fits);
    } catch {
      return `the fits file ${this.userFile} could not be read back for the state store`;
    }
    this.applied = text;
    const written = (await this.store.ready(FITS_WRITE_WAIT_MS)) && (await this.store.setSwitch(FITS_SWITCH, text));
    return written
      ? undefined
      : `the state store ${this.store.address} did not take the fits: only this machine uses them`;
  }

  /** The team's fits, written here when new (anything but a fits file under the key is ignored, never a crash). */
  private take(text: string): void {
    if (text === this.applied || !looksLikeFits(text)) return;
    this.applied = text;
    try {
      ensureDir(path.dirname(this.userFile));
      const staged = `${this.userFile}.${process.pid}.shared`;
      writeFileSync(staged, text, { mode: 0o600 });
      renameSync(staged, this.userFile);
    } catch {
      this.applied = undefined; // tried again at the next poll
    }
  }
}

function looksLikeFits(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && Array.isArray(parsed.fits);
  } catch {
    return false;
  }
}
