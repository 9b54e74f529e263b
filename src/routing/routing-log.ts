import * as path from 'node:path';
import { appendJsonLines, jsonLine } from '../logging/json-lines';
import { capLoggedText } from './routing-limits';

/** Whether Claude Code's working directory is one of `log_dirs` or below one (the opt-in per repository). */
export function insideLogDirs(cwd: string | undefined, logDirs: readonly string[]): boolean {
  if (!cwd) return false;
  const here = path.resolve(cwd);
  return logDirs.some((dir) => {
    const relative = path.relative(dir, here);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/** One entry as one line of JSON, its text fields capped (a prompt can be megabytes). */
export function logLine(entry: Record<string, unknown>): string {
  return jsonLine(capped(entry));
}

/** Appends one entry; it holds prompt text, so the file is written as `appendJsonLines` writes (0600). */
export function appendLogLine(file: string, entry: Record<string, unknown>): void {
  appendLogLines(file, [entry]);
}

/** Several entries in one write, so a failing disk leaves all of them out rather than some. */
export function appendLogLines(file: string, entries: readonly Record<string, unknown>[]): void {
  appendJsonLines(file, entries.map(capped));
}

const capped = (entry: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(entry).map(([key, value]) => [key, typeof value === 'string' ? capLoggedText(value) : value]),
  );
