import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isRecord } from '../../common/is-record';
import { CANDIDATES_MAX, LEVELS_MAX } from '../../common/limits';
import { jsonDepthExceeds } from '../../common/json-depth';

/** Deeper JSON is refused before anything walks it recursively (serialisation, engines). */
export const STATE_MAX_DEPTH = 32;

/** Ids that would reach an object's prototype when used as keys. */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

/** What is wrong with a question or candidate id as a key, or undefined. */
export function idProblem(id: string, what: 'id' | 'key'): string | undefined {
  if (id.trim() === '') return `has an empty ${what}`;
  if (RESERVED_IDS.has(id)) return `uses the reserved ${what} ${JSON.stringify(id)}`;
  return undefined;
}

/**
 * The one rule across fields of a typed request: a box question has something to look at. The index or id
 * of the first box question without an image, or undefined.
 */
export function boxWithoutImage<K>(questions: readonly [K, { type?: unknown }][], images: unknown): K | undefined {
  if (Array.isArray(images) && images.length > 0) return undefined;
  return questions.find(([, question]) => question.type === 'box')?.[0];
}

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** Why `value` is not usable JSON for an engine (too deep, or not serialisable); undefined when it is. */
function jsonProblem(value: unknown): string | undefined {
  if (jsonDepthExceeds(value, STATE_MAX_DEPTH))
    return `nests more than ${STATE_MAX_DEPTH} levels (or refers to itself)`;
  try {
    JSON.stringify(value);
  } catch {
    return 'cannot be written as JSON';
  }
  return undefined;
}

/** The problem of a list or map over its cap, read before any entry is: `must hold at most 256 levels (got 40000)`. */
export const overCap = (cap: number, what: string, count: number) => `must hold at most ${cap} ${what} (got ${count})`;

/** Registers a check whose message depends on the value: `check` returns the problem, or undefined. */
export function valueCheck(name: string, check: (value: unknown) => string | undefined, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => check(value) === undefined,
        defaultMessage: (args) => check(args?.value) ?? 'is invalid',
      },
    });
}

/**
 * The state questions are about: any JSON value, bounded. Engines take text, objects and arrays; another
 * scalar is a well-formed call they answer `unsupported` (dsh-system1), not a malformed one.
 */
export const IsState = () =>
  valueCheck('isState', (value) =>
    value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint'
      ? `must be text or a JSON value (got ${value === undefined ? 'nothing' : kind(value)})`
      : jsonProblem(value),
  );

/** Instructions and descriptions: non-empty text, or non-empty JSON an engine renders as text. */
export const IsDescribed = (options?: ValidationOptions) => valueCheck('isDescribed', describedProblem, options);

function describedProblem(value: unknown): string | undefined {
  if (value === undefined) return 'is missing';
  const empty =
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (isRecord(value) && Object.keys(value).length === 0);
  if (empty) return 'must not be empty';
  if (typeof value === 'string') return undefined;
  if (typeof value !== 'object' || value === null) return `must be text or JSON (got ${kind(value)})`;
  return jsonProblem(value);
}

/** A choice's candidates: two or more, keyed by candidate, each described or null (the key stands for itself). */
export const IsCandidates = () =>
  valueCheck('isCandidates', (value) => {
    const problem =
      'must be an object with at least two candidates, keyed by candidate, each with a description or null';
    if (!isRecord(value) || Object.keys(value).length < 2) return problem;
    if (Object.keys(value).length > CANDIDATES_MAX)
      return overCap(CANDIDATES_MAX, 'candidates', Object.keys(value).length);
    for (const [key, description] of Object.entries(value)) {
      const wrongKey = idProblem(key, 'key');
      if (wrongKey) return wrongKey;
      const wrong = description === null ? undefined : describedProblem(description);
      if (wrong) return `.${key} ${wrong}`;
    }
    return undefined;
  });

/** A score's levels, lowest first: two or more, each described. */
export const IsLevels = () =>
  valueCheck('isLevels', (value) => {
    if (!Array.isArray(value) || value.length < 2) return 'must be a list of at least two levels, lowest first';
    if (value.length > LEVELS_MAX) return overCap(LEVELS_MAX, 'levels', value.length);
    for (const [index, level] of value.entries()) {
      const wrong = describedProblem(level);
      if (wrong) return `[${index}] ${wrong}`;
    }
    return undefined;
  });
