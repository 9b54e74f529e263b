import { isRecord } from '../common/is-record';
import { CANDIDATES_MAX, QUESTIONS_MAX } from '../common/limits';
import { RESERVED_IDS } from '../decisions/dto/json-value.decorators';
import type { Question } from '../decisions/questions/question.types';
import { fieldName, Ineligible, shownName } from './ineligible';
import { resolveSchema } from './schema-refs';

/**
 * A structured-output JSON Schema as questions for the fast engine (`spec/lazycontroller-schemas.txt`,
 * "From schema to questions"): one question per leaf, all sent in one request.
 *
 * | schema field                              | question                                        | value             |
 * |-------------------------------------------|-------------------------------------------------|-------------------|
 * | enum, Literal, Enum                       | choice, one option per value                    | the chosen value  |
 * | boolean                                   | noul                                            | p >= 0.5          |
 * | integer with both bounds, 2 to 11 values  | score, one level per integer                    | the likeliest one |
 * | enum or boolean, or null                  | choice plus "Not stated or not applicable"      | the value or null |
 * | object                                    | one question per leaf, id `parent.child`        | nested JSON       |
 * | const, a one-value enum                   | none                                            | filled in         |
 *
 * Anything else makes the whole schema ineligible (thrown as Ineligible, naming the field), and so does a
 * schema over the limits every typed question is held to (questions, candidates, usable ids): these are
 * the router's checks of what it sends, made once here, so the pipeline is asked nothing it would refuse.
 */

/** The option that stands for null in an `X | null` field. */
export const NULL_OPTION = 'Not stated or not applicable';

/** How many integers a score question may span. */
export const SCORE_VALUES = { min: 2, max: 11 } as const;

/** Deeper than this is almost surely a recursive model; no closed decision needs it. */
const MAX_DEPTH = 16;

/** A choice option: the key the engine sees and the JSON value it stands for. */
export interface ChoiceOption {
  key: string;
  value: unknown;
}

export type LeafShape =
  | { kind: 'choice'; id: string; options: ChoiceOption[] }
  | { kind: 'noul'; id: string }
  /** Level i stands for the integer `lowest + i`, for i below `levels`. */
  | { kind: 'score'; id: string; lowest: number; levels: number };

/** The answer's layout: objects in the schema's property order, leaves asked, constants filled in. */
export type Shape = { kind: 'object'; properties: [string, Shape][] } | { kind: 'const'; value: unknown } | LeafShape;

export interface SchemaPlan {
  /** The schema's name as the request gives it: it appears in every question. */
  name: string;
  shape: Shape;
  /** Keyed by question id, the leaf's dotted path. */
  questions: Record<string, Question>;
  leaves: LeafShape[];
}

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
]);

/** Keywords the mapping honours; any other keyword changes what a valid answer is, so the schema goes upstream. */
const HONOURED = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'unevaluatedProperties',
  '$ref',
  '$defs',
  'definitions',
  'anyOf',
  'oneOf',
  'allOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);

/** A property name an engine refuses as a question id, and that would be unsafe as an object key. */
const unusableName = (name: string) => name === '' || RESERVED_IDS.has(name);

/** An option an engine refuses as a candidate key: blank, or reserved. */
const unusableKey = (key: string) => key.trim() === '' || RESERVED_IDS.has(key);

interface Walk {
  root: unknown;
  name: string;
  questions: Record<string, Question>;
  leaves: LeafShape[];
}

export function schemaToQuestions(schema: unknown, name: string): SchemaPlan {
  const walk: Walk = { root: schema, name, questions: Object.create(null) as Record<string, Question>, leaves: [] };
  const shape = shapeOf(schema, [], walk);
  if (walk.leaves.length === 0) throw new Ineligible('the schema has no field to decide (every field is a constant)');
  if (walk.leaves.length > QUESTIONS_MAX) {
    const count = walk.leaves.length;
    throw new Ineligible(`the schema has ${count} fields to decide (the fast engine takes at most ${QUESTIONS_MAX})`);
  }
  return { name, shape, questions: { ...walk.questions }, leaves: walk.leaves };
}

function shapeOf(raw: unknown, path: string[], walk: Walk): Shape {
  const field = `field ${fieldName(path)}`;
  if (path.length > MAX_DEPTH)
    throw new Ineligible(`${field} nests deeper than ${MAX_DEPTH} levels (a recursive model?)`);
  const { node, nullable } = withoutNull(resolveSchema(raw, walk.root, path), path, walk.root);
  const type = node.type ?? (Object.hasOwn(node, 'properties') ? 'object' : undefined);
  if (path.length === 0 && (type !== 'object' || nullable))
    throw new Ineligible('the schema is not an object with properties');

  if (Object.hasOwn(node, 'const')) {
    checkKeywords(node, path);
    return nullable ? choice([node.const], true, path, node, walk) : { kind: 'const', value: node.const };
  }
  if (Object.hasOwn(node, 'enum')) {
    checkKeywords(node, path);
    const values = enumValues(node.enum, path);
    if (values.length === 0) return { kind: 'const', value: null };
    if (values.length === 1 && !nullable) return { kind: 'const', value: values[0] };
    return choice(values, nullable, path, node, walk);
  }
  switch (type) {
    case 'boolean':
      checkKeywords(node, path);
      if (nullable) return choice([true, false], true, path, node, walk);
      return leaf(
        { kind: 'noul', id: questionId(path, walk) },
        { type: 'noul', instructions: instructions(path, node, walk) },
        walk,
      );
    case 'integer':
      if (nullable) throw new Ineligible(`${field} is an integer or null (only an enum or a boolean may be null)`);
      return score(node, path, walk);
    case 'object':
      if (nullable) throw new Ineligible(`${field} is an object or null (only an enum or a boolean may be null)`);
      return object(node, path, walk);
    case 'null':
      checkKeywords(node, path);
      return { kind: 'const', value: null };
    case 'number':
      throw new Ineligible(`${field} is a number that need not be whole (float)`);
    case 'string':
      throw new Ineligible(`${field} is free text (a string without enum)`);
    case 'array':
      throw new Ineligible(`${field} is an array`);
    case undefined:
      throw new Ineligible(`${field} accepts any value (no type, enum or const)`);
    default:
      throw new Ineligible(`${field} has an unknown type ${shownName(String(type))}`);
  }
}

/**
 * Takes `X | null` apart in the spellings generators use: `anyOf`/`oneOf` with a null branch (pydantic,
 * zod in OpenAI strict mode), `type: [X, "null"]` and `null` among the enum values.
 */
function withoutNull(
  node: Record<string, unknown>,
  path: string[],
  root: unknown,
  unions = 0,
): { node: Record<string, unknown>; nullable: boolean } {
  const field = `field ${fieldName(path)}`;
  // A union's branch is read in place, not one path level down, so the depth check above never sees it.
  if (unions > MAX_DEPTH)
    throw new Ineligible(`${field} nests unions deeper than ${MAX_DEPTH} levels (a union that refers to itself?)`);
  const unionKey = ['anyOf', 'oneOf'].filter((key) => Object.hasOwn(node, key));
  if (unionKey.length > 1) throw new Ineligible(`${field} is a union of several types (anyOf and oneOf)`);
  if (unionKey.length === 1) {
    const key = unionKey[0];
    const branches = node[key];
    if (!Array.isArray(branches) || branches.length === 0) throw new Ineligible(`${field} has an unusable ${key}`);
    const resolved = branches.map((branch, i) => resolveSchema(branch, root, path, `${key}[${i}]`));
    const others = resolved.filter((branch) => !isNullSchema(branch));
    const nulls = resolved.length - others.length;
    if (others.length !== 1 || nulls > 1) throw new Ineligible(`${field} is a union of several types (${key})`);
    const { [key]: _branches, ...siblings } = node;
    // The field's own annotations (its description above all) win over the branch's.
    const inner = withoutNull({ ...others[0], ...siblings }, path, root, unions + 1);
    return { node: inner.node, nullable: inner.nullable || nulls === 1 };
  }
  let result = node;
  let nullable = false;
  if (Array.isArray(node.type)) {
    const types = [...new Set(node.type)];
    const others = types.filter((type) => type !== 'null');
    if (others.length > 1) throw new Ineligible(`${field} is a union of several types (${others.join(', ')})`);
    nullable = others.length < types.length;
    result = { ...result, type: others[0] ?? 'null' };
  }
  // Every keyword applies: beside an enum or a const, null is valid only when they allow it.
  if (Object.hasOwn(node, 'const')) return { node: result, nullable: false };
  if (Array.isArray(node.enum)) {
    const values = node.enum.filter((value) => value !== null);
    nullable = values.length < node.enum.length;
    result = { ...result, enum: values };
  }
  return { node: result, nullable };
}

function isNullSchema(node: Record<string, unknown>): boolean {
  if (node.type === 'null') return true;
  if (Object.hasOwn(node, 'const') && node.const === null) return true;
  return Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null;
}

function enumValues(raw: unknown, path: string[]): unknown[] {
  const field = `field ${fieldName(path)}`;
  if (!Array.isArray(raw)) throw new Ineligible(`${field} has an enum that is not a list`);
  if (raw.some((value) => value !== null && typeof value === 'object'))
    throw new Ineligible(`${field} has an enum of objects or arrays`);
  return raw;
}

function checkKeywords(node: Record<string, unknown>, path: string[]): void {
  for (const key of Object.keys(node)) {
    if (!ANNOTATIONS.has(key) && !HONOURED.has(key)) {
      throw new Ineligible(`field ${fieldName(path)} uses ${shownName(key)}, a keyword the fast engine cannot honour`);
    }
  }
}

function choice(
  values: unknown[],
  nullable: boolean,
  path: string[],
  node: Record<string, unknown>,
  walk: Walk,
): LeafShape {
  const options: ChoiceOption[] = values.map((value) => ({
    key: typeof value === 'string' ? value : JSON.stringify(value),
    value,
  }));
  if (nullable) options.push({ key: NULL_OPTION, value: null });
  if (options.length > CANDIDATES_MAX) {
    const field = `field ${fieldName(path)}`;
    throw new Ineligible(`${field} has ${options.length} options (a choice takes at most ${CANDIDATES_MAX})`);
  }
  const keys = new Set<string>();
  for (const { key } of options) {
    if (unusableKey(key)) {
      throw new Ineligible(`field ${fieldName(path)} has an option the fast engine cannot name: ${shownName(key)}`);
    }
    if (keys.has(key))
      throw new Ineligible(`field ${fieldName(path)} has two options that read alike: ${shownName(key)}`);
    keys.add(key);
  }
  const criteria = Object.fromEntries(options.map(({ key }) => [key, null]));
  return leaf(
    { kind: 'choice', id: questionId(path, walk), options },
    { type: 'choice', instructions: instructions(path, node, walk), criteria },
    walk,
  );
}

function score(node: Record<string, unknown>, path: string[], walk: Walk): LeafShape {
  checkKeywords(node, path);
  const field = `field ${fieldName(path)}`;
  const lowest = bound(node, 'minimum', 'exclusiveMinimum', path);
  const highest = bound(node, 'maximum', 'exclusiveMaximum', path);
  if (lowest === undefined || highest === undefined) throw new Ineligible(`${field} is an integer without both bounds`);
  const count = highest - lowest + 1;
  if (count < SCORE_VALUES.min || count > SCORE_VALUES.max) {
    throw new Ineligible(
      `${field} is an integer with ${Math.max(count, 0)} possible values ` +
        `(a score takes ${SCORE_VALUES.min} to ${SCORE_VALUES.max})`,
    );
  }
  // The levels are the integers themselves, lowest first.
  const criteria = Array.from({ length: count }, (_, i) => String(lowest + i));
  return leaf(
    { kind: 'score', id: questionId(path, walk), lowest, levels: count },
    { type: 'score', instructions: instructions(path, node, walk), criteria },
    walk,
  );
}

/** The tightest integer bound of one side, from the inclusive keyword and either form of the exclusive one. */
function bound(
  node: Record<string, unknown>,
  inclusive: string,
  exclusive: string,
  path: string[],
): number | undefined {
  const lower = inclusive === 'minimum';
  const candidates: number[] = [];
  const value = node[inclusive];
  const strict = node[exclusive];
  for (const [key, raw] of [
    [inclusive, value],
    [exclusive, strict],
  ] as const) {
    if (raw !== undefined && typeof raw !== 'number' && !(key === exclusive && typeof raw === 'boolean')) {
      throw new Ineligible(`field ${fieldName(path)} has a ${key} that is not a number`);
    }
    if (typeof raw === 'number' && !Number.isFinite(raw))
      throw new Ineligible(`field ${fieldName(path)} has an infinite ${key}`);
  }
  if (typeof value === 'number') {
    // Draft 4 spells an exclusive bound as `exclusiveMinimum: true` beside `minimum`.
    const excluded = strict === true;
    candidates.push(
      lower
        ? excluded
          ? Math.floor(value) + 1
          : Math.ceil(value)
        : excluded
          ? Math.ceil(value) - 1
          : Math.floor(value),
    );
  }
  if (typeof strict === 'number') candidates.push(lower ? Math.floor(strict) + 1 : Math.ceil(strict) - 1);
  if (candidates.length === 0) return undefined;
  return lower ? Math.max(...candidates) : Math.min(...candidates);
}

function object(node: Record<string, unknown>, path: string[], walk: Walk): Shape {
  checkKeywords(node, path);
  const field = `field ${fieldName(path)}`;
  for (const key of ['additionalProperties', 'unevaluatedProperties']) {
    if (node[key] !== undefined && node[key] !== false)
      throw new Ineligible(`${field} accepts properties it does not list (${key})`);
  }
  const properties = node.properties;
  if (!isRecord(properties) || Object.keys(properties).length === 0)
    throw new Ineligible(`${field} is an object without properties (free-form)`);
  const required = node.required ?? [];
  if (!Array.isArray(required) || required.some((name) => typeof name !== 'string'))
    throw new Ineligible(`${field} has an unusable required list`);
  for (const name of required as string[]) {
    if (!Object.hasOwn(properties, name))
      throw new Ineligible(`${field} requires ${shownName(name)}, which it does not describe`);
  }
  const shapes: [string, Shape][] = [];
  for (const [name, child] of Object.entries(properties)) {
    if (unusableName(name)) {
      throw new Ineligible(`${field} has a property the fast engine cannot name: ${shownName(name)}`);
    }
    shapes.push([name, shapeOf(child, [...path, name], walk)]);
  }
  return { kind: 'object', properties: shapes };
}

function leaf(shape: LeafShape, question: Question, walk: Walk): LeafShape {
  walk.questions[shape.id] = question;
  walk.leaves.push(shape);
  return shape;
}

/** The leaf's dotted path; two paths that read alike (`a.b` and `a: {b}`) would share answers, so they may not. */
function questionId(path: string[], walk: Walk): string {
  const id = path.join('.');
  if (id.trim() === '') {
    throw new Ineligible(`field ${shownName(id)} has a blank name, which the fast engine cannot ask by`);
  }
  if (Object.hasOwn(walk.questions, id))
    throw new Ineligible(`field ${id} is named twice (a property name with a dot?)`);
  return id;
}

function instructions(path: string[], node: Record<string, unknown>, walk: Walk): string {
  const description =
    typeof node.description === 'string' && node.description.trim() !== ''
      ? node.description.trim()
      : humanise(path[path.length - 1]);
  return `Decide the field \`${path.join('.')}\` of the ${walk.name} the conversation asks for: ${description}`;
}

/** `is_urgent`, `isUrgent` and `is-urgent` all read "is urgent". */
export function humanise(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-\s]+/g, ' ')
    .trim()
    .toLowerCase();
}
