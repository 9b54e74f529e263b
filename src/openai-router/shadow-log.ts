import { clip } from '../common/clip';
import { isRecord } from '../common/is-record';
import { appendJsonLines } from '../logging/json-lines';
import type { FieldAnswer } from './answers-to-json';
import { MAX_DETAIL_CHARS, type Route } from './route-report';

/** One field the fast engine answered, and, when the slow answer could be read, what it said. */
export interface ShadowField {
  id: string;
  fast: unknown;
  confidence: number;
  slow?: unknown;
  agree?: boolean;
}

/**
 * One line of the shadow log (JSONL): what the router would have done, and for each field asked, whether
 * the fast engine agreed with the slow model. It holds decision values and schema field names only: never
 * message text or credentials, and a slow value outside the schema is cut short.
 */
export interface ShadowRecord {
  at: string;
  request_id: string;
  endpoint: string;
  /** The schema's name, when the request asked for one. */
  schema?: string;
  /** The route a live router would have taken at the threshold in force when recorded. */
  route: Route;
  detail?: string;
  min_confidence: number;
  slow_status: number;
  /**
   * Why the slow answer could not be read for comparison (too big to keep, cut off, unreachable); the
   * request is recorded all the same, so `router-report` counts it.
   */
  slow_unavailable?: string;
  /** Present when the fast engine answered every field; `slow`/`agree` only when the slow answer was read. */
  fields?: ShadowField[];
}

export function compareFields(fast: FieldAnswer[], slow: Record<string, unknown> | undefined): ShadowField[] {
  return fast.map(({ id, value, confidence }) => {
    // Field ids are the caller's property names, of any length: the log keeps them as short as route details.
    const shown = clip(id, MAX_DETAIL_CHARS, '…');
    if (!slow) return { id: shown, fast: loggable(value), confidence };
    const theirs = valueAt(slow, id.split('.'));
    return {
      id: shown,
      fast: loggable(value),
      confidence,
      slow: loggable(theirs),
      agree: theirs !== undefined && sameValue(value, theirs),
    };
  });
}

function valueAt(object: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = object;
  for (const name of path) {
    if (!isRecord(node) || !Object.hasOwn(node, name)) return undefined;
    node = node[name];
  }
  return node;
}

/** Decision values are scalars; anything else never agrees. */
const sameValue = (a: unknown, b: unknown) => a === b;

function loggable(value: unknown): unknown {
  if (value === undefined) return '(missing)';
  if (typeof value === 'string') return clip(value, 80);
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? '(array)' : '(object)';
  return value;
}

/** Appends records to the shadow log; failures to write are reported by the caller, never thrown at a request. */
export class ShadowLog {
  constructor(readonly file: string) {}

  append(record: ShadowRecord): void {
    appendJsonLines(this.file, [record]);
  }
}
