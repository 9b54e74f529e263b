import { isRecord } from '../common/is-record';
import { WireInputError } from './wire-reply';

/** A JSON object at `param`, holding no key but `allowed` (an unknown field is named, as OpenAI does). */
export function objectAt(value: unknown, param: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isRecord(value)) throw new WireInputError(param, `must be an object (got ${kindOf(value)})`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw new WireInputError(join(param, key), `is not a field here (expected ${allowed.join(', ')})`);
  }
  return value;
}

/** A string at `param`: non-empty unless `empty`, at most `max` characters when given. */
export function textAt(value: unknown, param: string, { empty = false, max }: { empty?: boolean; max?: number } = {}) {
  if (typeof value !== 'string') throw new WireInputError(param, `must be a string (got ${kindOf(value)})`);
  if (!empty && value.trim() === '') throw new WireInputError(param, 'must not be empty');
  if (max !== undefined && value.length > max)
    throw new WireInputError(param, `must be at most ${max} characters (got ${value.length})`);
  return value;
}

/** An array at `param` of `min` to `max` items. */
export function listAt(value: unknown, param: string, min: number, max: number): unknown[] {
  if (!Array.isArray(value)) throw new WireInputError(param, `must be an array (got ${kindOf(value)})`);
  if (value.length < min || value.length > max)
    throw new WireInputError(param, `must hold ${min} to ${max} items (got ${value.length})`);
  return value;
}

/** One of `allowed` at `param` (absent or null passes when `optional`). */
export function oneOfAt<T extends string>(value: unknown, param: string, allowed: readonly T[], optional = false): T {
  if (optional && (value === undefined || value === null)) return value as unknown as T;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw new WireInputError(param, `must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`);
  return value as T;
}

/** `questions[3]` + `choices` -> `questions[3].choices`; an index -> `questions[3]`. */
export function join(param: string, key: string | number): string {
  if (typeof key === 'number') return `${param}[${key}]`;
  return param === '' ? key : `${param}.${key}`;
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
