import { deepFreeze } from '../../common/deep-freeze';
import { isRecord } from '../../common/is-record';
import { setOwn } from '../../common/own-keys';
import { shown } from '../../common/clip';
import { MalformedResponseError } from '../errors/decision-error';
import { kindOf } from '../../common/is-record';
import type { EvaluateReply, ProviderCapabilities } from '../registry/provider.interface';
import { questionCapabilitiesOf, type QuestionCapabilities } from '../questions/question-capabilities';

/** The longest model name an engine's reply may report; a longer one is not a name. */
export const REPORTED_MODEL_MAX_CHARS = 256;
/** Ids of questions nobody asked named in the one warning about them; the rest are counted. */
export const STRAY_IDS_SHOWN = 3;

/**
 * `value` as plain JSON data: every getter, `toJSON` and Proxy trap of a provider's object runs here, inside
 * the attempt, so nothing read later can throw or change. Fails with words of ours, never the provider's:
 * its text is not safe to show. `what` names the value, only when it cannot be read.
 */
function plainData(value: unknown, what: () => string): unknown {
  // Text, true and false, null and absence are data already, and immutable: no copy to make.
  if (value === undefined || value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  try {
    const copied = copyOfPlainData(value, 0);
    if (copied !== NOT_PLAIN) return copied;
    // Something JSON converts (a toJSON, a Date, NaN, a function...): JSON's own round trip says how.
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    throw new MalformedResponseError(`${what()} cannot be read as data`);
  }
}

const NOT_PLAIN = Symbol('not plain data');
/** Deeper than this, the JSON round trip copies (and a cycle fails there as it always did). */
const PLAIN_COPY_DEPTH = 32;

/**
 * A copy of what is already JSON's data (plain objects and arrays of text, finite numbers, booleans and null),
 * the same as JSON's round trip would make, at a seventh of its cost (the answers of every decision pass
 * here); NOT_PLAIN for anything the round trip would convert or drop.
 */
function copyOfPlainData(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  // As JSON writes them: -0 as 0, and NaN and the infinities (which it makes null) are not plain.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
  if (typeof value !== 'object' || depth > PLAIN_COPY_DEPTH) return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype && Array.isArray(value)) {
    const items = value as unknown[];
    const copy: unknown[] = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) {
      if (!(i in items)) return NOT_PLAIN;
      const item = copyOfPlainData(items[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = item;
    }
    return copy;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const object = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  // for...in also walks inherited keys: one there (a polluted prototype) is the round trip's to judge.
  for (const key in object) {
    if (!Object.hasOwn(object, key)) return NOT_PLAIN;
    const item = copyOfPlainData(object[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    // JSON.parse makes `__proto__` an own key, as it came: the copy keeps it one.
    setOwn(copy, key, item);
  }
  return copy;
}

type CapabilitiesData = { facts: ProviderCapabilities; typed: QuestionCapabilities };

/**
 * Capabilities read before, by the object a provider returned: kept only for one frozen all the way down
 * (see frozenData), which no getter, trap or later write can make say something else.
 */
const readBefore = new WeakMap<object, CapabilitiesData>();

/** An engine's capabilities as data, and the typed questions it takes. */
export function capabilitiesData(engine: string, capabilities: () => ProviderCapabilities): CapabilitiesData {
  let raw: unknown;
  try {
    raw = capabilities();
  } catch {
    throw new MalformedResponseError(`${engine}: capabilities() failed`);
  }
  const known = isRecord(raw) ? readBefore.get(raw) : undefined;
  if (known) return known;
  const read = readCapabilities(engine, raw);
  if (isRecord(raw) && frozenData(raw)) readBefore.set(raw, deepFreeze(read));
  return read;
}

function readCapabilities(engine: string, raw: unknown): CapabilitiesData {
  const facts = plainData(raw, () => `${engine}: what capabilities() returned`);
  if (!isRecord(facts))
    throw new MalformedResponseError(`${engine}: capabilities() returned ${kindOf(facts)}, not an object`);
  const typed = questionCapabilitiesOf(facts);
  if (!Array.isArray(typed.types) || !typed.types.every((type) => typeof type === 'string')) {
    throw new MalformedResponseError(`${engine}: capabilities() list no question types`);
  }
  return { facts: facts as ProviderCapabilities, typed };
}

/**
 * Plain data that cannot change: frozen, with plain or no prototypes (no inherited `toJSON`), values in data
 * properties only (a frozen Proxy must report its target's values), all the way down. A trap that throws
 * makes it not so.
 */
function frozenData(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function';
  try {
    const prototype = Object.getPrototypeOf(value) as unknown;
    const plain = prototype === null || prototype === Object.prototype || prototype === Array.prototype;
    if (!plain || depth > 8 || !Object.isFrozen(value)) return false;
    return Reflect.ownKeys(value).every((key) => {
      const property = Object.getOwnPropertyDescriptor(value, key);
      return property !== undefined && 'value' in property && frozenData(property.value, depth + 1);
    });
  } catch {
    return false;
  }
}

/** Answers to questions nobody asked: counted, and the first few ids kept for the warning. */
export interface StrayAnswers {
  count: number;
  first: string[];
}

/**
 * An engine's reply as data, with an `answers` object; else the whole reply is unreadable. Only the answers
 * and errors of questions asked are copied: a reply of 300,000 answers to questions nobody asked costs a
 * count, not a copy.
 */
export function replyData(
  engine: string,
  reply: unknown,
  asked: Readonly<Record<string, unknown>>,
): { reply: EvaluateReply; stray: StrayAnswers } {
  const unreadable = () => new MalformedResponseError(`${engine} returned no answers object`);
  let fields: Record<string, unknown>;
  let answers: Record<string, unknown>;
  let errors: unknown;
  try {
    if (!isRecord(reply)) throw unreadable();
    fields = reply;
    answers = fields.answers as Record<string, unknown>;
    if (!isRecord(answers)) throw unreadable();
    errors = fields.errors;
  } catch (error) {
    throw error instanceof MalformedResponseError
      ? error
      : new MalformedResponseError(`${engine}'s reply cannot be read as data`);
  }
  const stray: StrayAnswers = { count: 0, first: [] };
  // Plain objects (see setOwn): these are built on every decision.
  const taken: Record<string, unknown> = {};
  for (const id of ownKeysOf(answers, engine, 'answers')) {
    if (Object.hasOwn(asked, id)) {
      setOwn(
        taken,
        id,
        plainData(readField(answers, id, engine, 'answers'), () => `${engine}'s answer to ${shown(id)}`),
      );
    } else if (stray.count++ < STRAY_IDS_SHOWN) {
      stray.first.push(id);
    }
  }
  let declined: Record<string, unknown> | undefined;
  if (isRecord(errors)) {
    for (const id of ownKeysOf(errors, engine, 'errors')) {
      if (Object.hasOwn(asked, id))
        setOwn(
          (declined ??= {}),
          id,
          plainData(readField(errors, id, engine, 'errors'), () => `${engine}'s error for ${shown(id)}`),
        );
    }
  }
  const fact = (field: 'model' | 'usage' | 'approximate' | 'degraded') =>
    plainData(readField(fields, field, engine, 'reply'), () => `${engine}'s "${field}"`);
  return {
    reply: {
      model: fact('model'),
      usage: fact('usage'),
      approximate: fact('approximate'),
      degraded: fact('degraded'),
      answers: taken,
      ...(declined && { errors: declined }),
    } as EvaluateReply,
    stray,
  };
}

/** Which part of an engine's reply a read failed in, for its message. */
type ReplyPart = 'answers' | 'errors' | 'reply';

function ownKeysOf(value: object, engine: string, part: ReplyPart): string[] {
  try {
    return Object.keys(value);
  } catch {
    throw new MalformedResponseError(`${engine}'s ${part} cannot be read as data`);
  }
}

function readField(value: Record<string, unknown>, key: string, engine: string, part: ReplyPart): unknown {
  try {
    return value[key];
  } catch {
    throw new MalformedResponseError(`${engine}'s ${part} cannot be read as data`);
  }
}

/** What an engine says beside its answers, each field checked: a bad one is dropped with one warning. */
export interface ReplyFacts {
  model?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  approximate?: boolean;
  degraded?: boolean;
  warnings: string[];
}

export function replyFacts(engine: string, reply: EvaluateReply, stray: StrayAnswers): ReplyFacts {
  const facts: ReplyFacts = { warnings: [] };
  const { model, usage, approximate, degraded } = reply as unknown as Record<string, unknown>;
  const dropped = (field: string, value: unknown, expected: string) =>
    facts.warnings.push(`${engine} reported ${field} as ${kindOf(value)}, not ${expected} (ignored)`);

  if (typeof model === 'string' && model.trim() !== '' && model.length <= REPORTED_MODEL_MAX_CHARS) facts.model = model;
  else if (model !== undefined && model !== null)
    dropped('its model', model, `a name of at most ${REPORTED_MODEL_MAX_CHARS} characters`);

  if (usage !== undefined && usage !== null) {
    const read = readUsage(usage);
    if (read && Object.keys(read).length > 0) facts.usage = read;
    else if (!read) dropped('its usage', usage, '{inputTokens, outputTokens} counts');
  }
  for (const [field, value] of [
    ['approximate', approximate],
    ['degraded', degraded],
  ] as const) {
    if (typeof value === 'boolean') facts[field] = value;
    else if (value !== undefined && value !== null) dropped(`"${field}"`, value, 'true or false');
  }

  if (stray.count > 0) {
    const named = stray.first.map((id) => shown(id)).join(', ');
    const more = stray.count > stray.first.length ? ` and ${stray.count - stray.first.length} more` : '';
    const answers = stray.count === 1 ? 'answer to a question not asked was' : 'answers to questions not asked were';
    facts.warnings.push(`${engine}: ${stray.count} ${answers} ignored (${named}${more})`);
  }
  return facts;
}

/** A token count as engines report it: a whole number, never negative. */
export const isTokenCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The token counts, and only those: another field an engine adds is not passed on. */
function readUsage(usage: unknown): ReplyFacts['usage'] | undefined {
  if (!isRecord(usage)) return undefined;
  const read: NonNullable<ReplyFacts['usage']> = {};
  for (const key of ['inputTokens', 'outputTokens'] as const) {
    const value = Object.hasOwn(usage, key) ? usage[key] : undefined;
    if (value === undefined) continue;
    if (!isTokenCount(value)) return undefined;
    read[key] = value;
  }
  return read;
}
