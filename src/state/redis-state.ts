import type { Redis } from 'ioredis';
import { TAKE_TOKEN_SCRIPT } from './bucket-script';
import type { SharedState, StateMessage } from './shared-state';
import type { StoreLink } from './store-link';

/** Cooldown records and switches go to every process on this channel (under the prefix). */
const CHANNEL = 'changes';

/** The bucket script's command, defined once per client (EVALSHA, and EVAL when the store lost the script). */
type WithTakeToken = Redis & {
  system1TakeToken(key: string, perMs: number, burst: number): Promise<unknown>;
};

const isWait = (reply: unknown) =>
  Number.isSafeInteger(reply) && (reply as number) >= 0 ? (reply as number) : undefined;
const isText = (reply: unknown) => (typeof reply === 'string' ? reply : undefined);
const isOk = (reply: unknown) => (reply === 'OK' ? true : undefined);
/** SET NX: OK when claimed, null when another process holds it. */
const claimed = (reply: unknown) => (reply === 'OK' ? true : reply === null ? false : undefined);
const anyNumber = (reply: unknown) => (typeof reply === 'number' ? true : undefined);
/** GET: the text, null when the key is not there (a miss is an answer too). */
const textOrNull = (reply: unknown) => (reply === null ? null : isText(reply));

/**
 * The shared state in Redis (or Valkey): every key under `[state] prefix`, every per-caller or per-request key
 * with a TTL. A second connection listens for the other processes' cooldowns and switches.
 */
export class RedisState implements SharedState {
  private readonly listeners = new Set<(message: StateMessage) => void>();

  constructor(
    private readonly link: StoreLink,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    readonly address: string,
  ) {
    link.client.defineCommand('system1TakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_SCRIPT });
    // Loaded at each connection, before the first decision needs it: no first call pays EVALSHA, NOSCRIPT, EVAL.
    link.beforeUp((client) => client.script('LOAD', TAKE_TOKEN_SCRIPT));
    subscriber.on('message', (_channel: string, text: string) => this.heard(text));
    subscriber.on('error', () => undefined);
    void subscriber.subscribe(this.prefix + CHANNEL).catch(() => undefined);
  }

  up(): boolean {
    return this.link.up();
  }

  take(bucket: string, perMinute: number, burst: number): Promise<number | undefined> {
    const key = `${this.prefix}rate:${bucket}`;
    return this.link.call(
      (client) => (client as WithTakeToken).system1TakeToken(key, perMinute / 60_000, burst),
      isWait,
    );
  }

  async cached(key: string): Promise<string | undefined> {
    const text = await this.link.call((client) => client.get(`${this.prefix}cache:${key}`), textOrNull);
    return text ?? undefined;
  }

  keep(key: string, text: string, ttlMs: number): void {
    const ms = Math.max(1, Math.ceil(ttlMs));
    void this.link.call((client) => client.set(`${this.prefix}cache:${key}`, text, 'PX', ms), isOk);
  }

  switchValue(name: string): Promise<string | null | undefined> {
    return this.link.call((client) => client.get(`${this.prefix}switch:${name}`), textOrNull);
  }

  async setSwitch(name: string, value: string): Promise<boolean> {
    // A switch is the operator's (pause, fits): one key each, kept without a TTL, a handful in all.
    const set = await this.link.call((client) => client.set(`${this.prefix}switch:${name}`, value), isOk);
    if (!set) return false;
    this.publish({ kind: 'switch', name, value });
    return true;
  }

  publishCooldown(key: string, entry: unknown): void {
    this.publish({ kind: 'cooldown', key, entry: entry ?? null });
  }

  onMessage(listener: (message: StateMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  claimTrial(key: string, holdMs: number): Promise<boolean | undefined> {
    const ms = Math.max(1, Math.ceil(holdMs));
    // SET NX PX: one process holds it, and it expires by itself if that process dies holding it.
    return this.link.call((client) => client.set(`${this.prefix}trial:${key}`, '1', 'PX', ms, 'NX'), claimed);
  }

  releaseTrial(key: string): void {
    void this.link.call((client) => client.del(`${this.prefix}trial:${key}`), anyNumber);
  }

  /** Nest closes it with the application (a CLI command's end, `mcp`'s, the library's close()). */
  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /** Resolves once the store answers, or after `limitMs` (a one-shot command's write waits for the connection). */
  async ready(limitMs: number): Promise<boolean> {
    const until = Date.now() + limitMs;
    while (!this.up() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.up();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
    await this.link.close();
  }

  private publish(message: StateMessage): void {
    void this.link.call((client) => client.publish(this.prefix + CHANNEL, JSON.stringify(message)), anyNumber);
  }

  /** Another process's message: read defensively (anything on the channel may be garbage), then handed on. */
  private heard(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isMessage(message)) return;
    for (const listener of this.listeners) listener(message);
  }
}

function isMessage(value: unknown): value is StateMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (message.kind === 'cooldown') return typeof message.key === 'string' && 'entry' in message;
  return message.kind === 'switch' && typeof message.name === 'string' && typeof message.value === 'string';
}
