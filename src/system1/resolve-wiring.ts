import type { ClassToken, Dependency, TypedToken, Wiring } from './wiring';

/** A value the starting process gives for a token of the list (its config, its environment, its engines). */
export interface Supplied {
  readonly token: string | symbol;
  readonly value: unknown;
}

export function supply<T>({ token }: TypedToken<T>, value: T): Supplied {
  return { token, value };
}

/** The services of a resolved list. */
export interface ResolvedWiring {
  get<T>(service: ClassToken<T>): T;
}

/**
 * Builds every service of `list` once, each after what it injects, without Nest's container: the hooks run
 * before every prompt, and the container's start-up was most of theirs. What the list injects but does not
 * build is `supplied`; an optional token supplied by no one is undefined, as with Nest's `@Optional()`.
 */
export function resolveWiring(list: readonly Wiring[], supplied: readonly Supplied[]): ResolvedWiring {
  const byService = new Map(list.map((wiring) => [wiring.provide, wiring] as const));
  const givens = new Map(supplied.map(({ token, value }) => [token, value] as const));
  const built = new Map<unknown, unknown>();
  const building: string[] = [];

  const resolve = (dependency: Dependency<unknown>): unknown => {
    const needer = building.at(-1) ?? 'the caller';
    if (typeof dependency !== 'function') {
      if (givens.has(dependency.token) || dependency.optional) return givens.get(dependency.token);
      throw new Error(`nothing supplies ${String(dependency.token)}, and ${needer} needs it`);
    }
    if (built.has(dependency)) return built.get(dependency);
    const wiring = byService.get(dependency);
    if (!wiring) throw new Error(`${dependency.name} is not in the list, and ${needer} needs it`);
    if (building.includes(dependency.name)) throw new Error(`a cycle: ${[...building, dependency.name].join(' -> ')}`);
    building.push(dependency.name);
    const service = new wiring.useClass(...(wiring.inject.map(resolve) as never));
    building.pop();
    built.set(dependency, service);
    return service;
  };

  for (const wiring of list) resolve(wiring.provide);
  return { get: <T>(service: ClassToken<T>) => resolve(service) as T };
}
