import { getMetadataStorage } from 'class-validator';
import { dtoErrors } from './dto-verdict';
import { isRecord } from './is-record';

/** One thing wrong with an input, named by its path (`questions.urgency.criteria`, `images[0].data`). */
export interface FieldProblem {
  field: string;
  problem: string;
}

type DtoClass = new () => object;

interface NestedSpec {
  /** The class of a nested value (chosen from the value for a union, e.g. by a question's `type`). */
  of: (value: unknown) => DtoClass | undefined;
  /** A list of them, or a map of them keyed by id. */
  shape: 'one' | 'list' | 'map';
  /** What one of them is called in a message: "an image", "a choice question". */
  what: (value: unknown) => string;
}

const NESTED = new WeakMap<DtoClass, Map<string, NestedSpec>>();

/**
 * Marks a property whose value is checked against another DTO (or a list or id-keyed map of them); its
 * own decorators still say what the property itself must be (an array, an object).
 */
export function NestedDto(of: NestedSpec['of'], shape: NestedSpec['shape'], what: NestedSpec['what']) {
  return (target: object, property: string) => {
    const owner = target.constructor as DtoClass;
    if (!NESTED.has(owner)) NESTED.set(owner, new Map());
    NESTED.get(owner)!.set(property, { of, shape, what });
  };
}

/** The nested properties of a DTO and of the classes it extends. */
function nestedOf(Dto: DtoClass): Map<string, NestedSpec> {
  const all = new Map<string, NestedSpec>();
  for (
    let current: unknown = Dto;
    typeof current === 'function' && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    for (const [property, spec] of NESTED.get(current as DtoClass) ?? [])
      if (!all.has(property)) all.set(property, spec);
  }
  return all;
}

const FIELDS = new WeakMap<DtoClass, ReadonlySet<string>>();

/**
 * The properties a DTO declares, from its own decorators (and those of the classes it extends). Worked out
 * once per class: decorators run when a class is defined, and class-validator's metadata lookup scans every
 * registered class (see dto-verdict.ts), which a check of each nested question would otherwise repeat.
 */
export function declaredFields(Dto: DtoClass): ReadonlySet<string> {
  let fields = FIELDS.get(Dto);
  if (!fields) {
    const declared = getMetadataStorage()
      .getTargetValidationMetadatas(Dto, '', true, false)
      .map((metadata) => metadata.propertyName);
    fields = new Set([...declared, ...nestedOf(Dto).keys()]);
    FIELDS.set(Dto, fields);
  }
  return fields;
}

/**
 * The keys of `raw` that are not among `fields`. Own keys are compared, never looked up in an object, so
 * "constructor" or "toString" are refused too (class-validator's whitelist lets them through); a
 * "__proto__" key that went through a plain assignment on its way here (the MCP SDK's argument parsing
 * does that) has become the prototype, and is named as "__proto__".
 */
export function undeclaredKeys(raw: Record<string, unknown>, fields: ReadonlySet<string>): string[] {
  const unknown = Object.keys(raw).filter((key) => !fields.has(key));
  const prototype = Object.getPrototypeOf(raw) as unknown;
  if (prototype !== Object.prototype && prototype !== null) unknown.push('__proto__');
  return unknown;
}

/** The words for an undeclared key, listing the fields there are. */
export const notAFieldOf = (what: string, fields: ReadonlySet<string>): string =>
  `is not a field of ${what} (fields: ${[...fields].join(', ')})`;

/**
 * Copies checked input into a DTO instance with defineProperty, never assignment, so that an own
 * "__proto__" key stays a plain field instead of replacing the instance's prototype.
 */
export function dtoInstance<T extends object>(Dto: new () => T, raw: Record<string, unknown>): T {
  const instance = new Dto();
  for (const key of Object.keys(raw))
    Object.defineProperty(instance, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
  return instance;
}

/**
 * Checks raw input against a DTO class and its nested DTOs, class-validator doing the checking: unknown
 * fields are refused (see undeclaredKeys), every problem is named by its path.
 */
export function checkDto(Dto: DtoClass, raw: unknown, at: string, what: string): FieldProblem[] {
  if (!isRecord(raw)) return [{ field: at, problem: `must be an object: ${what}` }];
  const fields = declaredFields(Dto);
  const problems: FieldProblem[] = undeclaredKeys(raw, fields).map((key) => ({
    field: at ? `${at}.${key}` : JSON.stringify(key),
    problem: notAFieldOf(what, fields),
  }));
  if (problems.length > 0) return problems;

  for (const error of dtoErrors(dtoInstance(Dto, raw), { forbidUnknownValues: false })) {
    const first = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
    // A check of a whole map or list may name the entry that is wrong: `.urgency.criteria must ...`.
    const inner = /^([.[]\S*) (.*)$/s.exec(first);
    problems.push(
      inner
        ? { field: join(at, error.property) + inner[1], problem: inner[2] }
        : { field: join(at, error.property), problem: first },
    );
  }
  if (problems.length > 0) return problems;

  for (const [property, spec] of nestedOf(Dto)) {
    const value = raw[property];
    if (value === undefined) continue;
    const entries: [string, unknown][] =
      spec.shape === 'one'
        ? [[join(at, property), value]]
        : spec.shape === 'list'
          ? (value as unknown[]).map((item, index) => [`${join(at, property)}[${index}]`, item])
          : Object.entries(value as Record<string, unknown>).map(([key, item]) => [
              `${join(at, property)}.${key}`,
              item,
            ]);
    for (const [path, item] of entries) {
      const Child = spec.of(item);
      if (Child) problems.push(...checkDto(Child, item, path, spec.what(item)));
    }
  }
  return problems;
}

const join = (at: string, property: string) => (at ? `${at}.${property}` : property);
