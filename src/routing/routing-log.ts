import * as path from 'node:path';
import { escapeControlCharacters } from '../logging/control-characters';
import { appendToLog } from '../logging/log-file';
import { withLogLock } from '../logging/log-lock';
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

/**
 * One entry as one line of JSON: text fields capped (a prompt can be megabytes), and DEL, C1 and U+2028/9,
 * which JSON.stringify leaves raw, escaped too, so `cat` or `tail -f` on the log shows no terminal escapes.
 */
export function logLine(entry: Record<string, unknown>): string {
  const capped = Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, typeof value === 'string' ? capLoggedText(value) : value]));
  return `${escapeControlCharacters(JSON.stringify(capped))}\n`;
}

/**
 * Appends one JSON line. A single write to a file opened for appending lands whole at the end, so two
 * sessions writing at once never interleave their lines. Only a regular file is written (a FIFO or a
 * device is refused with code ENOTREG), created 0600 in folders created 0700: it holds prompt text.
 */
export function appendLogLine(file: string, entry: Record<string, unknown>): void {
  appendLogLines(file, [entry]);
}

/**
 * Several lines in one write, so a failing disk leaves all of them out rather than some. Under the log's
 * lock, so a rewrite (`system1 label apply`) never renames its copy over a line appended after its read.
 */
export function appendLogLines(file: string, entries: readonly Record<string, unknown>[]): void {
  const text = entries.map(logLine).join('');
  withLogLock(file, () => appendToLog(file, text));
}
