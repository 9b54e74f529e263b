import { registerDecorator, type ValidationArguments } from 'class-validator';
import { jsonDepthExceeds } from '../../common/json-depth';

export const CONTEXT_MAX_DEPTH = 32;
export const CONTEXT_MAX_BYTES = 64 * 1024;

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
          value === undefined ||
          (!jsonDepthExceeds(value, maxDepth) && Buffer.byteLength(JSON.stringify(value)) <= maxBytes),
      },
    });
}
