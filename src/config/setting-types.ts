/**
 * Typed setting values shared by the gateway's own keys and every provider's settings, so a number,
 * flag or list is read the same way from the TOML file (already typed) and from an environment
 * variable (always text).
 */
import { shown } from '../common/clip';

/** Thrown by a setting type; the message says what was expected and never echoes a secret. */
export class SettingValueError extends Error {}

/** The words for a value a setting type refused. */
export function settingProblem(error: unknown): string {
  return error instanceof SettingValueError ? error.message : 'is not a valid value';
}

export interface SettingType<T> {
  /** What is accepted, in words, for error messages and `capabilities`. */
  readonly expects: string;
  fromFile(value: unknown): T;
  fromEnv(text: string): T;
}

function reject(expects: string, value: unknown): never {
  throw new SettingValueError(`must be ${expects}, got ${shown(value)}`);
}

export function text(
  options: { nonEmpty?: boolean; choices?: readonly string[]; upperCase?: boolean } = {},
): SettingType<string> {
  const expects = options.choices
    ? `one of ${options.choices.map((c) => JSON.stringify(c)).join(', ')}`
    : options.nonEmpty
      ? 'a non-empty string'
      : 'a string';
  const check = (value: unknown): string => {
    if (typeof value !== 'string') reject(expects, value);
    const normalised = options.upperCase ? value.toUpperCase() : value;
    if (options.nonEmpty && normalised.trim() === '') reject(expects, value);
    if (options.choices && !options.choices.includes(normalised)) reject(expects, value);
    return normalised;
  };
  return { expects, fromFile: check, fromEnv: check };
}

interface Range {
  min?: number;
  max?: number;
  /** The lower bound itself is refused: (min, max]. */
  minExclusive?: boolean;
}

function rangeWords({ min, max, minExclusive }: Range): string {
  if (min !== undefined && max !== undefined) return ` in ${minExclusive ? '(' : '['}${min}, ${max}]`;
  if (min !== undefined) return minExclusive ? ` above ${min}` : ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

function numeric(kind: 'number' | 'integer', range: Range): SettingType<number> {
  const expects = `${kind === 'integer' ? 'an integer' : 'a number'}${rangeWords(range)}`;
  const check = (value: unknown, original: unknown = value): number => {
    if (typeof value !== 'number' || !Number.isFinite(value)) reject(expects, original);
    if (kind === 'integer' && !Number.isInteger(value)) reject(expects, original);
    const { min, max, minExclusive } = range;
    if (min !== undefined && (minExclusive ? value <= min : value < min)) reject(expects, original);
    if (max !== undefined && value > max) reject(expects, original);
    return value;
  };
  return {
    expects,
    // smol-toml reads integers as numbers already; a bigint only appears past 2^53, which no range accepts.
    fromFile: (value) => check(typeof value === 'bigint' ? Number(value) : value),
    fromEnv: (raw) => check(raw.trim() === '' ? Number.NaN : Number(raw), raw),
  };
}

export const decimal = (range: Range = {}): SettingType<number> => numeric('number', range);
export const integer = (range: Range = {}): SettingType<number> => numeric('integer', range);

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

export function flag(): SettingType<boolean> {
  const expects = 'true or false';
  return {
    expects,
    fromFile: (value) => (typeof value === 'boolean' ? value : reject(expects, value)),
    fromEnv: (raw) => {
      const word = raw.trim().toLowerCase();
      if (TRUE_WORDS.includes(word)) return true;
      if (FALSE_WORDS.includes(word)) return false;
      return reject(expects, raw);
    },
  };
}

/** Milliseconds in [0, max], where 0 (or "off") is off, or the word "auto" (a delay the gateway measures). */
export function millisecondsOrAuto(max: number): SettingType<number | 'auto'> {
  const expects = `a number of milliseconds in [0, ${max}] (0 is off), "auto" or "off"`;
  const ms = decimal({ min: 0, max });
  const word = (value: unknown): number | 'auto' | undefined => {
    if (typeof value !== 'string') return undefined;
    const lower = value.trim().toLowerCase();
    return lower === 'auto' ? 'auto' : lower === 'off' ? 0 : undefined;
  };
  const read = (value: unknown, fromText: (value: unknown) => number): number | 'auto' => {
    const named = word(value);
    if (named !== undefined) return named;
    try {
      return fromText(value);
    } catch {
      return reject(expects, value);
    }
  };
  return {
    expects,
    fromFile: (value) => read(value, (v) => ms.fromFile(v)),
    fromEnv: (raw) => read(raw, (v) => ms.fromEnv(v as string)),
  };
}

/** A list of strings: a TOML array in the file, a `separator`-separated value in the environment. */
export function list(separator: string): SettingType<string[]> {
  const expects = 'a list of non-empty strings';
  return {
    expects,
    fromFile: (value) => {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
        reject(expects, value);
      }
      return value.map((item: string) => item.trim());
    },
    fromEnv: (raw) =>
      raw
        .split(separator)
        .map((item) => item.trim())
        .filter((item) => item !== ''),
  };
}

/** Any value. From the environment, JSON when it parses as JSON, else the text itself. */
export function anyValue(): SettingType<unknown> {
  return {
    expects: 'any value',
    fromFile: (value) => value,
    fromEnv: (raw) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    },
  };
}
