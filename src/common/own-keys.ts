/**
 * Maps keyed by what a user wrote (config sections and keys, provider names, question ids). A plain `{}`
 * answers `constructor`, `toString` or `__proto__` from Object.prototype, so a lookup of such a name finds a
 * function instead of nothing, and an assignment to `__proto__` is lost; these two helpers never do either.
 */

/** An empty map without a prototype: every key it answers for was put there. */
export const keyedMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** `record[key]` when the record itself holds the key, else undefined (never an inherited member). */
export const ownValue = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/**
 * `record[key] = value` as an own data property, also for `__proto__` (which an assignment would make the
 * prototype). For records built on every decision: a plain object is half the size of a {@link keyedMap},
 * and is read through `Object.hasOwn` (or {@link ownValue}) all the same.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
