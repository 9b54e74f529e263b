import { clip } from '../common/clip';

/**
 * Why a request cannot go to the fast engine. Thrown while reading a request or its schema and caught once,
 * where the route is decided: the request then goes to the upstream untouched, reported as `ineligible`.
 * The detail names the field or option at fault and is safe to show: it never quotes a message's text, a
 * header's value or a credential.
 */
export class Ineligible extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'Ineligible';
  }
}

/** A field's name as details show it: its dotted path, or `(root)` for the schema itself. */
export const fieldName = (path: readonly string[]): string => (path.length === 0 ? '(root)' : path.join('.'));

/** A short, printable rendering of a name taken from the request (option, keyword, header). */
export function shownName(name: string): string {
  return clip(JSON.stringify(name), 61, '..."');
}
