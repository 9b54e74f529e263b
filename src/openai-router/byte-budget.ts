/**
 * Bytes held across requests at once, shared by all of them: a request takes what it keeps and gives it back
 * when done, and what would pass the limit is refused rather than held.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` if they fit; false (and nothing taken) when they would pass the limit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }
}
