import { escapeControlCharacters } from './control-characters';
import { appendToLog } from './log-file';
import { withLogLock } from './log-lock';

/**
 * One entry as one line of JSON, with DEL, C1 and U+2028/9, which JSON.stringify leaves raw, escaped too,
 * so `cat` or `tail -f` on the log shows no terminal escapes.
 */
export function jsonLine(entry: object): string {
  return `${escapeControlCharacters(JSON.stringify(entry))}\n`;
}

/**
 * Appends entries as JSON lines in one write (a single write to a file opened for appending lands whole at
 * the end, so two writers never interleave their lines, and a failing disk leaves all of them out rather
 * than some), under the log's lock, so a rewrite never renames its copy over a line appended after its read.
 * Only a regular file is written (code ENOTREG otherwise), created 0600 in folders created 0700.
 */
export function appendJsonLines(file: string, entries: readonly object[]): void {
  const text = entries.map(jsonLine).join('');
  withLogLock(file, () => appendToLog(file, text));
}
