import { writeAllBytes, writeToLog } from './log-file';

const NEWLINE = 0x0a;
const LINE_END = Buffer.from([NEWLINE]);

/**
 * The copy a log rewrite writes, fed a chunk at a time: each line up to `maxLineBytes` offered to `replace`
 * (undefined keeps its bytes as they were, so even invalid UTF-8 stays), a longer one copied through as its
 * bytes come, never held whole (a damaged log can hold hundreds of MB without a newline; the readers skip such
 * a line, so it names no entry to replace). Only the pieces of one line are held, never joined twice.
 */
export class LineCopy {
  /** How many lines `replace` replaced. */
  replaced = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line over the cap: its bytes go straight to the copy. */
  private passing = false;

  constructor(
    private readonly output: number,
    private readonly replace: (line: string) => string | undefined,
    private readonly maxLineBytes: number,
  ) {}

  /** Copies `chunk` (which the caller may reuse after this returns). */
  push(chunk: Buffer): void {
    for (let start = 0; start < chunk.length;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (!this.passing && this.pendingBytes + piece.length > this.maxLineBytes) {
        for (const held of this.pending) writeAllBytes(this.output, held);
        this.drop();
        this.passing = true;
      }
      if (newline === -1) {
        if (this.passing) writeAllBytes(this.output, piece);
        else this.hold(Buffer.from(piece));
        return;
      }
      if (this.passing) writeAllBytes(this.output, Buffer.concat([piece, LINE_END]));
      else this.emit(this.pendingBytes === 0 ? piece : Buffer.concat([...this.pending, piece]));
      this.drop();
      this.passing = false;
      start = newline + 1;
    }
  }

  /** The log's last line, cut off at a crash, keeps its bytes, without a newline made up for it. */
  end(): void {
    for (const held of this.pending) writeAllBytes(this.output, held);
    this.drop();
  }

  private emit(line: Buffer): void {
    const replacement = this.replace(line.toString('utf8'));
    if (replacement === undefined) return writeAllBytes(this.output, Buffer.concat([line, LINE_END]));
    this.replaced += 1;
    writeToLog(this.output, `${replacement}\n`);
  }

  private hold(piece: Buffer): void {
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  private drop(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}
