import type { Redis } from 'ioredis';

/** How often a store seen down on a live connection (late, or garbage) is asked again with PING. */
const PROBE_EVERY_MS = 250;
/** The longest pause between the client's own reconnects. */
export const RECONNECT_AT_MOST_MS = 1000;

/** A store call that failed: the reason is a few words, never the URL or a credential. */
class StoreFault extends Error {}

/** A reply read as what we wrote, or undefined when it is not (a wrong type or value under our key). */
export type ReplyReader<T> = (reply: unknown) => T | undefined;

/**
 * The connection to the store and its health: each call under the deadline; a call past it, a refused one or a
 * reply of the wrong shape counts the store down (one log line), and every call then answers `undefined` at once
 * so decisions use their own state, until a probe (every 250 ms) or the client's reconnect finds it answering
 * again (one log line). Never throws.
 */
export class StoreLink {
  private isUp = false;
  private probe?: NodeJS.Timeout;
  private closed = false;
  private readonly preparations: ((client: Redis) => Promise<unknown>)[] = [];

  constructor(
    readonly client: Redis,
    private readonly deadlineMs: number,
    private readonly address: string,
    private readonly log: (line: string, level: 'log' | 'warn') => void,
  ) {
    client.on('ready', () => void this.prepared().then((ok) => ok && this.markUp()));
    client.on('close', () => this.markDown('the connection closed'));
    // ioredis reports each failed reconnect here; the transition was logged once, the rest says nothing new.
    client.on('error', () => undefined);
  }

  up(): boolean {
    return this.isUp;
  }

  /** Runs `prepare` on each new connection before it counts as up (a script loaded, say). */
  beforeUp(prepare: (client: Redis) => Promise<unknown>): void {
    this.preparations.push(prepare);
  }

  private async prepared(): Promise<boolean> {
    try {
      for (const prepare of this.preparations) await prepare(this.client);
      return true;
    } catch {
      return false; // the next probe tries again
    }
  }

  /** `run` on the store under the deadline, its reply read by `read`; undefined when the store did not answer. */
  async call<T>(run: (client: Redis) => Promise<unknown>, read: ReplyReader<T>): Promise<T | undefined> {
    if (!this.isUp) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreFault(`no answer within ${this.deadlineMs} ms`)), this.deadlineMs);
    });
    try {
      const value = read(await Promise.race([run(this.client), late]));
      if (value === undefined) throw new StoreFault('an answer of the wrong shape under our key');
      return value;
    } catch (error) {
      this.markDown(faultWords(error));
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    this.client.disconnect();
  }

  private markUp(): void {
    if (this.isUp || this.closed) return;
    this.isUp = true;
    clearInterval(this.probe);
    this.probe = undefined;
    this.log(`state store ${this.address} up: rate limits, cooldowns, the cache and the switches are shared`, 'log');
  }

  private markDown(reason: string): void {
    if (!this.isUp || this.closed) return;
    this.isUp = false;
    this.log(
      `state store ${this.address} down (${reason}): this process keeps its own limits, cooldowns and cache ` +
        'until it answers again',
      'warn',
    );
    this.probe = setInterval(() => void this.ping(), PROBE_EVERY_MS);
    this.probe.unref();
  }

  /** Back up when it answers PING in time on a ready connection (a timeout or garbage alone leaves it ready). */
  private async ping(): Promise<void> {
    if (this.client.status !== 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.deadlineMs)));
    const answer = await Promise.race([this.client.ping().catch(() => undefined), late]);
    clearTimeout(timer);
    if (answer === 'PONG' && (await this.prepared())) this.markUp();
  }
}

/** A few words on why a call failed: Redis's own error word (WRONGTYPE, NOSCRIPT, ...) or ours. */
function faultWords(error: unknown): string {
  if (error instanceof StoreFault) return error.message;
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('WRONGTYPE')) return 'a value of the wrong type under our key';
  const word = /^[A-Z]{3,}\b/.exec(message)?.[0];
  return word ? `the store answered ${word}` : 'the store refused the call';
}
