import { Injectable } from '@nestjs/common';

/**
 * Where commands print, injectable so tests read what a user would see. `out` is stdout (one JSON document
 * with --json); `err` is stderr (progress, human notes when stdout is reserved).
 */
@Injectable()
export class OutputWriter {
  out(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  err(text: string): void {
    process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  json(document: unknown): void {
    this.out(JSON.stringify(document, null, 2));
  }

  /** Exit status for the process once the command returns (nest-commander closes the app first). */
  fail(code = 1): void {
    process.exitCode = code;
  }
}
