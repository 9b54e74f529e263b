import type { Writable } from 'node:stream';

/** The corks holding writes right now; one exit listener for all of them (one per turn cost a busy server). */
const holding = new Set<TurnCork>();
let exitListener = false;

/**
 * Holds a stream's writes of one turn of the event loop and lets them go as one write at its end. stdout
 * and stderr to a pipe are synchronous on Linux: a write call per answer was a sixth of a busy stdio
 * server's time, and a log line per decision at INFO a sixth again. The turn, not the tick: engine replies
 * arrive one socket read each, so a tick rarely finishes more than one answer. What is held when the
 * process exits is written then, so an exit in mid-turn loses nothing.
 */
export class TurnCork {
  private readonly release = () => {
    if (!holding.delete(this)) return;
    this.stream.uncork();
  };

  constructor(private readonly stream: Writable) {
    if (exitListener) return;
    exitListener = true;
    process.on('exit', () => holding.forEach((cork) => cork.release()));
  }

  /** Called before each write of the turn; the first one holds the stream until the turn ends. */
  hold(): void {
    if (holding.has(this)) return;
    holding.add(this);
    this.stream.cork();
    setImmediate(this.release);
  }
}
