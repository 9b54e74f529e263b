import type { FactoryProvider, InjectionToken, OptionalFactoryDependency } from '@nestjs/common';

/** A class, as a token for its own instance. */
export type ClassToken<T> = abstract new (...args: never) => T;

/** A token that is not a class (a config, the environment), with the type of what it stands for. */
export interface TypedToken<T> {
  readonly token: string | symbol;
  /** Resolved as undefined when nothing provides it, as `@Optional()`. */
  readonly optional?: true;
  /** Never set: it carries `T`, so an inject list is checked against the constructor it feeds. */
  readonly type?: T;
}

export type Dependency<T> = ClassToken<T> | TypedToken<T>;

/** What each constructor argument is taken from, in order; an optional argument must be listed too. */
export type Dependencies<A extends unknown[]> = { [K in keyof A]-?: Dependency<A[K]> };

/**
 * One service of a wiring list: Nest's `{ provide, useClass, inject }` with the inject list written out, so
 * the Nest container and a start without it (`resolveWiring`) build it from the same list.
 */
export interface Wiring<T = unknown> {
  readonly provide: ClassToken<T>;
  readonly useClass: new (...args: never) => T;
  readonly inject: readonly Dependency<unknown>[];
}

export function typedToken<T>(token: string | symbol, options: { optional?: true } = {}): TypedToken<T> {
  return { token, ...options };
}

/** `Class` built from `inject`; the compiler holds the list to the constructor's arguments. */
export function wire<A extends unknown[], T>(
  useClass: new (...args: A) => T,
  ...inject: NoInfer<Dependencies<A>>
): Wiring<T> {
  return { provide: useClass, useClass, inject };
}

/** The same service for Nest: a factory over the same inject list (Nest would read the decorators instead). */
export function nestProvider({ provide, useClass, inject }: Wiring): FactoryProvider {
  return {
    provide,
    useFactory: (...dependencies: unknown[]) => new useClass(...(dependencies as never)),
    inject: inject.map(nestDependency),
  };
}

function nestDependency(dependency: Dependency<unknown>): InjectionToken | OptionalFactoryDependency {
  if (typeof dependency === 'function') return dependency;
  return dependency.optional ? { token: dependency.token, optional: true } : dependency.token;
}
