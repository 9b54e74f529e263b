/** The engines `system1 engine` manages; the reranker is the one so far. */
export const MANAGED_ENGINES = ['reranker'] as const;

/** Why `name` cannot be managed, or undefined when it can. */
export function unmanagedEngine(name: string | undefined): string | undefined {
  if (name !== undefined && (MANAGED_ENGINES as readonly string[]).includes(name)) return undefined;
  return `expected an engine name, ${MANAGED_ENGINES.join(' or ')}, got ${JSON.stringify(name ?? '')}`;
}
