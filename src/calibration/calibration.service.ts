import { Inject, Injectable, Logger } from '@nestjs/common';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitFully } from '../common/full-wait';
import type { LoadedConfig } from '../config/config.loader';
import { PACKAGE_ROOT } from '../config/paths';
import { system1Config } from '../config/system1.config';
import { fitChooser, FitTarget } from './fit-choice';
import { readFitFile, StoredFit } from './fit-store';
import { scaleNamed } from './temperature';
import { SharedFits } from './shared-fits';
import { IN_PROCESS, type SharedState } from '../state/shared-state';

/**
 * How long another process's new fits may go unseen: a stat per decision was a tenth of the pipeline's own time,
 * so a server looks at the user's file at most this often, and `calibrate --write` waits this long after saving
 * (`settled`), so every decision that starts after it returns uses the new fits (as `system1 toggle` does).
 */
export const FITS_SEEN_WITHIN_MS = 100;

/** The fits that ship with the package; the user's file in the install dir takes precedence. */
export const SHIPPED_FITS = path.join(PACKAGE_ROOT, 'calibration', 'calibration.json');

export interface Calibrated {
  confidence: number;
  probabilities: Record<string, number> | null;
  calibrated: boolean;
}

export interface LoadedFit extends StoredFit {
  file: string;
}

/**
 * Applies the matching trusted fit to an answer (the rule is fitChooser's): the question's own fit, else the
 * fit for its option count; the user's file before the shipped one. Fits are read at the first decision, and
 * again when the user's file changes on disk (`calibrate --write` from another process): see {@link fitsInForce}.
 */
@Injectable()
export class CalibrationService {
  private readonly logger = new Logger('Calibration');
  private loaded?: { fits: LoadedFit[]; problems: string[] };
  private choose?: (target: FitTarget) => LoadedFit | undefined;
  /** The user's file as last seen (size, times, inode) and when it was looked at, and how many times it changed. */
  private seen?: string;
  private lookedAt = -Infinity;
  private changes = 0;

  /** With a store (`[state] url`): the team's fits, written into this machine's file as `calibrate --write` saves them. */
  private readonly shared?: SharedFits;

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    shared?: SharedState,
  ) {
    if (shared && shared !== IN_PROCESS) this.shared = new SharedFits(shared, this.userFile);
  }

  get userFile(): string {
    return path.join(this.config.installDir, 'calibration.json');
  }

  /** Every fit loaded, the user's first, and the problems found reading the files. */
  load(): { fits: LoadedFit[]; problems: string[] } {
    if (this.loaded) return this.loaded;
    // Seen before it is read: a write in between is then seen as a change, and read again.
    this.seen = fileSignature(this.userFile);
    this.lookedAt = performance.now();
    const fits: LoadedFit[] = [];
    const problems: string[] = [];
    for (const file of [this.userFile, SHIPPED_FITS]) {
      const read = readFitFile(file);
      fits.push(...read.fits.map((fit) => ({ ...fit, file })));
      problems.push(...read.problems);
    }
    for (const problem of problems) this.logger.warn(problem);
    return (this.loaded = { fits, problems });
  }

  /**
   * Which fits are in force: a number that changes when the user's fit file does (written, replaced, removed),
   * whose fits are then read again at their next use. The file is looked at once per {@link FITS_SEEN_WITHIN_MS}.
   */
  fitsInForce(): number {
    const at = performance.now();
    if (at - this.lookedAt < FITS_SEEN_WITHIN_MS) return this.changes;
    this.lookedAt = at;
    const now = fileSignature(this.userFile);
    if (this.seen !== undefined && now !== this.seen) {
      this.loaded = undefined;
      this.choose = undefined;
      this.changes++;
    }
    this.seen = now;
    return this.changes;
  }

  /** Resolves once every running server uses fits just saved (see {@link FITS_SEEN_WITHIN_MS}). */
  settled(): Promise<void> {
    return waitFully(FITS_SEEN_WITHIN_MS);
  }

  /**
   * With a store, gives the user's file just saved to every process of the team; the answer says why they did
   * not get it, when they did not (nothing to say without a store: this machine's file is all there is).
   */
  async shareUserFits(): Promise<string | undefined> {
    return this.shared?.publish();
  }

  find(provider: string, model: string | null, question: string, optionCount: number): LoadedFit | undefined {
    this.choose ??= fitChooser(this.load().fits);
    return this.choose({ provider, model, question, optionCount });
  }

  /**
   * Rescales an answer's probabilities (and so its confidence) when a fit matches. Answers without
   * probabilities (a model's self-reported confidence) cannot be rescaled and stay as they are.
   */
  apply(
    provider: string,
    model: string | null | undefined,
    question: { text: string; options: readonly string[] },
    answer: { decision: string; confidence: number; probabilities: Record<string, number> | null },
  ): Calibrated {
    const unchanged = { confidence: answer.confidence, probabilities: answer.probabilities, calibrated: false };
    if (!answer.probabilities || model === undefined) return unchanged;
    const fit = this.find(provider, model, question.text, question.options.length);
    if (!fit) return unchanged;
    const probabilities = scaleNamed(answer.probabilities, fit.temperature);
    const confidence = probabilities[answer.decision];
    return confidence === undefined ? unchanged : { confidence, probabilities, calibrated: true };
  }
}

/** What tells one version of a file from the next without reading it; "none" when there is no file. */
function fileSignature(file: string): string {
  try {
    const stats = statSync(file, { bigint: true, throwIfNoEntry: false });
    return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : 'none';
  } catch {
    return 'unreadable';
  }
}
