import { statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRecord } from '../common/is-record';
import {
  FILE_CAPS,
  readFailureCode,
  readFailureReason,
  readRegularFileSync,
  refuseUnlessRegular,
} from '../common/regular-file';
import { ensureDir } from '../config/ensure-dir';
import { TEMPERATURE_BOUNDS } from './fit';

/**
 * One fitted temperature. It applies to answers from `provider` with `model` (the checkpoint the provider
 * pins; null for providers without one) either for one question text or, as a fallback for questions
 * without a fit of their own, for every question with `option_count` options.
 */
export interface StoredFit {
  provider: string;
  model: string | null;
  question?: string;
  option_count?: number;
  temperature: number;
  /** Labelled answers the fit was made on. */
  n: number;
  at_bound: boolean;
  /**
   * The verdict of the run that made it (see fit-choice.ts: only trusted fits are applied). Absent in files
   * written before it was recorded: then n and at_bound decide.
   */
  trusted?: boolean;
  /** Where the fit came from, in words a reader can check: a calibrate run (file, date) or a published page. */
  source: string;
  fitted_at: string;
  /** The calibrate run's figures, kept so a user can see how far to trust the fit. */
  metrics?: Record<string, unknown>;
}

export interface FitFile {
  version: 1;
  fits: StoredFit[];
}

export function fitKey(fit: Pick<StoredFit, 'provider' | 'model' | 'question' | 'option_count'>): string {
  return JSON.stringify([fit.provider, fit.model, fit.question ?? null, fit.option_count ?? null]);
}

/**
 * Reads a fit file; a missing file is no fits, a broken one a list of problems (never an exception). Only a
 * regular file up to a cap: the first decision reads it synchronously, so a FIFO would freeze the server.
 */
export function readFitFile(file: string): { fits: StoredFit[]; problems: string[] } {
  let text: string;
  try {
    text = readRegularFileSync(file, FILE_CAPS.fits);
  } catch (error) {
    return {
      fits: [],
      problems: readFailureCode(error) === 'ENOENT' ? [] : [`${file}: cannot be read (${readFailureReason(error)})`],
    };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { fits: [], problems: [`${file}: not valid JSON`] };
  }
  if (!isRecord(document) || !Array.isArray(document.fits))
    return { fits: [], problems: [`${file}: expected {"version": 1, "fits": [...]}`] };
  const fits: StoredFit[] = [];
  const problems: string[] = [];
  document.fits.forEach((entry, index) => {
    const problem = fitProblem(entry);
    if (problem) problems.push(`${file}: fits[${index}] ${problem}; ignored`);
    else fits.push(entry as StoredFit);
  });
  return { fits, problems };
}

function fitProblem(entry: unknown): string | null {
  if (!isRecord(entry)) return 'is not an object';
  if (typeof entry.provider !== 'string' || !entry.provider) return 'has no provider';
  if (entry.model !== null && typeof entry.model !== 'string') return 'has no model (a string, or null)';
  const byQuestion = typeof entry.question === 'string' && entry.question !== '';
  const byCount = Number.isInteger(entry.option_count) && (entry.option_count as number) >= 2;
  if (byQuestion === byCount) return 'needs exactly one of question or option_count';
  const t = entry.temperature;
  if (typeof t !== 'number' || !(t >= TEMPERATURE_BOUNDS.min && t <= TEMPERATURE_BOUNDS.max)) {
    return `has a temperature outside [${TEMPERATURE_BOUNDS.min}, ${TEMPERATURE_BOUNDS.max}]`;
  }
  // Whether a fit is applied depends on these (fit-choice.ts), so a fit without them cannot be judged.
  if (!Number.isInteger(entry.n) || (entry.n as number) < 0)
    return 'has no n (the number of labelled answers it was fitted on)';
  if (entry.trusted !== undefined && typeof entry.trusted !== 'boolean')
    return 'has a trusted that is not true or false';
  return null;
}

/** A file's fits after saving `fits` into it: those with the same key replaced, the others kept first. */
export function mergeFits<F extends StoredFit>(existing: readonly F[], fits: readonly F[]): F[] {
  const replaced = new Set(fits.map(fitKey));
  return [...existing.filter((fit) => !replaced.has(fitKey(fit))), ...fits];
}

/** Writes fits into a file, replacing those with the same key and keeping the others. */
export function saveFits(file: string, fits: StoredFit[]): void {
  // Writing to a FIFO would wait for a reader forever: refuse anything but a regular file (or none yet).
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats) refuseUnlessRegular(file, stats, FILE_CAPS.fits);
  const merged: FitFile = { version: 1, fits: mergeFits(readFitFile(file).fits, fits) };
  ensureDir(path.dirname(file));
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
}
