import { closeSync, constants, ftruncateSync, writeSync } from 'node:fs';
import { openRegular } from '../logging/log-file';

/** Created if missing, a regular file only: a FIFO would block the write forever, a device swallow the rows. */
const FLAGS = constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);
/** The rows carry prompt text: only the user may read them, as the log. */
const MODE = 0o600;

/**
 * A file of exported data written as it is made (a log's worth is more than one string can hold): opened at
 * the first write or at `finish`, so a log that cannot be read leaves it as it was, written over from its
 * start, and cut to what was written at `finish`. Errors carry an errno-style code (ENOTREG names the kind).
 */
export class ExportFile {
  private fd: number | undefined;
  private written = 0;

  constructor(private readonly file: string) {}

  write(text: string): void {
    const fd = this.open();
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, this.written + at);
    this.written += bytes.length;
  }

  /** Everything is written: what was in the file past it goes. */
  finish(): void {
    ftruncateSync(this.open(), this.written);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    this.fd ??= openRegular(this.file, FLAGS, MODE);
    return this.fd;
  }
}
