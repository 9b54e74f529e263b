import { isRecord } from './is-record';

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
