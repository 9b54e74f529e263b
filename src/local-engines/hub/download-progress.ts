import { Injectable } from '@nestjs/common';
import { SingleBar } from 'cli-progress';

/** Where a download's progress goes: a bar on stderr for a person, nothing in tests. */
export abstract class DownloadProgress {
  /** A transfer of `file` starts at byte `from` of `total` (unknown when the server does not say). */
  abstract begin(file: string, total: number | undefined, from: number): void;
  abstract advance(bytes: number): void;
  abstract end(): void;
}

const MIB = 1024 * 1024;

/**
 * A bar on stderr, since stdout carries the command's result. cli-progress draws only on a terminal, so a
 * log or a pipe gets nothing from it (the pull prints a line per file there).
 */
@Injectable()
export class TerminalProgress extends DownloadProgress {
  private bar?: SingleBar;
  private value = 0;

  begin(file: string, total: number | undefined, from: number): void {
    this.bar = new SingleBar({
      format: `  ${file} [{bar}] {percentage}% {done}/{size} MiB`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    });
    const size = total ?? 0;
    this.value = from;
    this.bar.start(size, from, {
      done: (from / MIB).toFixed(1),
      size: total === undefined ? '?' : (size / MIB).toFixed(1),
    });
  }

  advance(bytes: number): void {
    this.value += bytes;
    this.bar?.update(this.value, { done: (this.value / MIB).toFixed(1) });
  }

  end(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}

/** No output: for tests and `--quiet` callers. */
export class SilentProgress extends DownloadProgress {
  begin(): void {}
  advance(): void {}
  end(): void {}
}
