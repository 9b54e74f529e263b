import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureDir } from '../config/ensure-dir';

/** Whether Claude Code's working directory is one of `log_dirs` or below one (the opt-in per repository). */
export function insideLogDirs(cwd: string | undefined, logDirs: readonly string[]): boolean {
  if (!cwd) return false;
  const here = path.resolve(cwd);
  return logDirs.some((dir) => {
    const relative = path.relative(dir, here);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/**
 * Appends one JSON line. A single write to a file opened for appending lands whole at the end, so two
 * sessions writing at once never interleave their lines.
 */
export function appendLogLine(file: string, entry: Record<string, unknown>): void {
  appendLogLines(file, [entry]);
}

/** Several lines in one write, so a failing disk leaves all of them out rather than some. */
export function appendLogLines(file: string, entries: readonly Record<string, unknown>[]): void {
  ensureDir(path.dirname(file));
  appendFileSync(file, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), { flag: 'a' });
}
