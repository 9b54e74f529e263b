import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** How much of the end of `log_file` is read: the last decisions are there, and a huge log costs nothing more. */
const TAIL_BYTES = 256 * 1024;

/** One decision as `log_file` has it: its request id, its verdict line, and the warnings about its attempts. */
export interface LoggedDecision {
  requestId: string;
  /** `decided by laya with confidence 0.91`, `error`, `abstained by ...`. */
  verdict: string;
  failed: boolean;
  /** The attempts' problems (`laya timeout: no answer in 5 s`), each from its WARN line. */
  problems: string[];
}

/** The last `bytes` of `file`, from its first whole line. */
function tailOf(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    closeSync(fd);
  }
}

// `2026-12-07T11:54:57.359Z INFO  [Decide] [req-1] decided by mock with confidence 0.9`, and the WARN lines
// about its attempts
const VERDICT = /^\S+ INFO {2}\[Decide\] \[([^\]]+)\] ((decided|abstained|error)\b.*)$/;
const WARNING = /^\S+ WARN {2}\[(?:Decide|Decisions)\] \[([^\]]+)\] (.+)$/;

/**
 * The last `count` `system1_decide` decisions in the gateway's `log_file`, newest last, each with the warnings
 * logged about it. Throws the file system's error when the file cannot be read.
 */
export function loggedDecisions(file: string, count: number): LoggedDecision[] {
  const problems = new Map<string, string[]>();
  const decisions: LoggedDecision[] = [];
  for (const line of tailOf(file, TAIL_BYTES).split('\n')) {
    const warning = WARNING.exec(line);
    if (warning) problems.set(warning[1], [...(problems.get(warning[1]) ?? []), warning[2]]);
    const verdict = VERDICT.exec(line);
    if (verdict)
      decisions.push({
        requestId: verdict[1],
        verdict: verdict[2],
        failed: verdict[3] === 'error',
        problems: problems.get(verdict[1]) ?? [],
      });
  }
  return decisions.slice(-count);
}
