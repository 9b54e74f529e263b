import { registerDecorator, ValidationArguments } from 'class-validator';
import { isRecord } from '../../common/is-record';

export const CONTEXT_MAX_DEPTH = 32;
export const CONTEXT_MAX_BYTES = 64 * 1024;

/**
 * How deep a JSON value nests, counted without recursion (a hostile value 100,000 levels deep must not
 * overflow the stack), stopping as soon as it passes `limit`.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : isRecord(current) ? Object.values(current) : [];
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Caps a JSON field's nesting and size: an engine gets it as the state, and nothing downstream (JSON
 * serialisation, the HTTP body, the engine's own limits) copes with unbounded input.
 */
export function BoundedJson(maxDepth: number, maxBytes: number) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'boundedJson',
      target: object.constructor,
      propertyName,
      constraints: [maxDepth, maxBytes],
      options: {
        message: ({ property, constraints: [depth, bytes] }: ValidationArguments) =>
          `${property} must nest at most ${depth} levels and take at most ${bytes} bytes as JSON`,
      },
      validator: {
        validate: (value: unknown) =>
          value === undefined || (!jsonDepthExceeds(value, maxDepth) && Buffer.byteLength(JSON.stringify(value)) <= maxBytes),
      },
    });
}
