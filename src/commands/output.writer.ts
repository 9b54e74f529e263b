import { Injectable } from '@nestjs/common';
import { escapeControlCharacters } from '../logging/control-characters';

/**
 * Where commands print, injectable so tests read what a user would see. `out` is stdout (one JSON document
 * with --json); `err` is stderr (progress, human notes when stdout is reserved).
 *
 * Each string given is one line, and its control characters (a newline among them) are escaped as the logs
 * escape them: an engine's error text or a data file's label can neither drive the terminal (clear it,
 * rewind a line) nor start a line of its own (a forged READY or PASS).
 */
@Injectable()
export class OutputWriter {
  out(lines: string | readonly string[]): void {
    writeOut(lines);
  }

  err(lines: string | readonly string[]): void {
    process.stderr.write(printable(lines));
  }

  json(document: unknown): void {
    this.out(jsonLines(document));
  }

  /**
   * As `json` prints `{...head, [key]: [...items]}`, the same text, but an item at a time, waiting for stdout
   * to take each (a pipe takes writes later, and holds them meanwhile): the array may be more than memory, or
   * one string, can hold.
   */
  async jsonWithItems(head: Record<string, unknown>, key: string, items: Iterable<unknown>): Promise<void> {
    const whole = jsonLines({ ...head, [key]: [] }); // its last lines: `  "key": []` and `}`
    let held: string[] | undefined;
    for (const item of items) {
      const lines = held
        ? [...held.slice(0, -1), `${held[held.length - 1]},`]
        : [...whole.slice(0, -2), whole[whole.length - 2].slice(0, -1)];
      if (!writeOut(lines) && !stdoutGone) await drained();
      if (stdoutGone) return;
      held = jsonLines(item).map((line) => `    ${line}`);
    }
    this.out(held ? [...held, '  ]', '}'] : whole);
  }

  /** Exit status for the process once the command returns (nest-commander closes the app first). */
  fail(code = 1): void {
    process.exitCode = code;
  }
}

/**
 * A document as indented JSON, one string per line: JSON.stringify escapes C0 inside strings, so every
 * newline is the layout's (DEL, C1 and U+2028 it leaves raw; the writer escapes them, keeping the JSON valid).
 */
export function jsonLines(document: unknown): string[] {
  return JSON.stringify(document, null, 2).split('\n');
}

/**
 * Whether stdout's reader went away (`system1 label list | head`): nothing more can be read, so the rest is
 * dropped quietly, as the MCP transport does, instead of dying on EPIPE with a stack. One listener for the
 * process, whatever the number of writers.
 */
let stdoutGone = false;
let watching = false;

function watchStdout(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    stdoutGone = true;
  });
}

/** False when stdout holds the write for later (or its reader went away): wait for it before writing more. */
function writeOut(lines: string | readonly string[]): boolean {
  watchStdout();
  return !stdoutGone && process.stdout.write(printable(lines));
}

/** Until stdout takes what it holds, or closes or fails (the listener above says whether its reader went). */
function drained(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) process.stdout.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) process.stdout.on(event, done);
  });
}

function printable(lines: string | readonly string[]): string {
  return (typeof lines === 'string' ? [lines] : lines).map((line) => `${escapeControlCharacters(line)}\n`).join('');
}
