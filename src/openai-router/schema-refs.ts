import { isRecord } from '../common/is-record';
import { fieldName, Ineligible, shownName } from './ineligible';

/** A `$ref` that leads to another `$ref` this many times is a loop. */
const MAX_REF_CHAIN = 32;

/**
 * One schema node with its references followed: `$ref` into the document (`#/$defs/...` from pydantic,
 * `#/definitions/...` and `#/properties/...` from zod-to-json-schema) and a one-element `allOf` (how older
 * pydantic attaches a description to a referenced model). Keywords beside the reference win over the
 * target's, so a field's own description is the one asked about.
 */
export function resolveSchema(
  raw: unknown,
  root: unknown,
  path: readonly string[],
  where = '',
): Record<string, unknown> {
  const field = `field ${fieldName(path)}${where ? ` (${where})` : ''}`;
  let node = nodeAt(raw, field);
  for (let hops = 0; ; hops++) {
    if (hops > MAX_REF_CHAIN) throw new Ineligible(`${field} has references that go round in a loop`);
    if (Object.hasOwn(node, '$ref')) {
      const { $ref: ref, ...siblings } = node;
      node = { ...nodeAt(pointer(root, ref, field), field), ...siblings };
    } else if (Array.isArray(node.allOf) && node.allOf.length === 1) {
      const { allOf, ...siblings } = node;
      node = { ...nodeAt(allOf[0], field), ...siblings };
    } else if (Object.hasOwn(node, 'allOf')) {
      throw new Ineligible(`${field} combines several schemas (allOf)`);
    } else {
      return node;
    }
  }
}

function nodeAt(raw: unknown, field: string): Record<string, unknown> {
  if (raw === true) throw new Ineligible(`${field} accepts any value (schema true)`);
  if (!isRecord(raw)) throw new Ineligible(`${field} has no usable schema`);
  return raw;
}

/** Follows a JSON Pointer fragment inside the document; anything outside it is refused. */
function pointer(root: unknown, ref: unknown, field: string): unknown {
  if (typeof ref !== 'string' || !ref.startsWith('#')) {
    throw new Ineligible(`${field} refers to a schema outside the request (${shownName(String(ref))})`);
  }
  if (ref === '#') return root;
  if (!ref.startsWith('#/'))
    throw new Ineligible(`${field} uses a named anchor (${shownName(ref)}), which is not followed`);
  let node: unknown = root;
  for (const token of ref.slice(2).split('/')) {
    let name: string;
    try {
      name = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      throw new Ineligible(`${field} has an unreadable reference ${shownName(ref)}`);
    }
    const container = Array.isArray(node) ? node : isRecord(node) ? node : undefined;
    if (!container || !Object.hasOwn(container, name))
      throw new Ineligible(`${field} refers to ${shownName(ref)}, which the schema does not define`);
    node = (container as Record<string, unknown>)[name];
  }
  return node;
}
