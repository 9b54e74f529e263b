import { clip } from '../common/clip';

/**
 * What the Claude Code hooks read and log, and what the routing log's and transcripts' readers hold at once,
 * in one place. Each is generous for real use (a pasted log or diff makes a prompt of some 100s of KB) and
 * small against a runaway: a 60 MB prompt read whole took the route hook 1.2 GB and four times its budget.
 */
export const ROUTING_LIMITS = {
  /** Hook JSON read from stdin; past it the hook stops reading and gives its "no decision" answer. */
  hookInputBytes: 4 * 1024 * 1024,
  /** Characters of a prompt (or of any other text field) kept in one routing-log entry. */
  loggedTextChars: 64 * 1024,
  /** Longer routing-log lines are skipped by its readers: with the cap above, only a damaged line gets there. */
  logLineBytes: 1024 * 1024,
  /** The end of the routing log `session-check` reads: thousands of entries, in a SessionStart hook's budget. */
  sessionCheckTailBytes: 16 * 1024 * 1024,
  /** Longer transcript lines are skipped: Claude Code's own lines carry tool output, an image at most. */
  transcriptLineBytes: 32 * 1024 * 1024,
  /** A SKILL.md's front matter, read before every prompt: its lines, and the longest line kept. */
  skillFrontMatterLines: 200,
  skillLineBytes: 64 * 1024,
} as const;

/**
 * A text field as the routing log keeps it: whole up to the cap, else its start and a marker with its full
 * length, so a reader knows it was cut and by how much.
 */
export function capLoggedText(text: string): string {
  const cap = ROUTING_LIMITS.loggedTextChars;
  if (text.length <= cap) return text;
  return `${clip(text, cap, '')} … [truncated: ${text.length.toLocaleString('en-US')} characters in all]`;
}
