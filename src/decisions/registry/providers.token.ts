import { type FactoryProvider } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { ProviderDefinition } from './provider.interface';

/**
 * Marks an injectable class as a provider definition. Nest has no multi-providers, so definitions are
 * discovered: mark the class, list it in any module's `providers`, and it joins `SYSTEM1_PROVIDERS`.
 *
 * ```ts
 * @Injectable() @System1ProviderDefinition()
 * export class MyEngineProvider implements ProviderDefinition { ... }
 *
 * @Module({ providers: [MyEngineProvider] })
 * export class MyEngineModule {}
 * ```
 */
export const System1ProviderDefinition = DiscoveryService.createDecorator<void>();

/** The multi-token: every marked definition in the application, resolved once Nest has built them. */
export const SYSTEM1_PROVIDERS = Symbol('SYSTEM1_PROVIDERS');

/** A live view over the marked definitions (instances exist only after the container is built). */
export interface ProviderDefinitions {
  all(): ProviderDefinition[];
}

export const providerDefinitionsToken: FactoryProvider<ProviderDefinitions> = {
  provide: SYSTEM1_PROVIDERS,
  inject: [DiscoveryService],
  useFactory: (discovery: DiscoveryService): ProviderDefinitions => {
    let cached: ProviderDefinition[] | undefined;
    return {
      all: () =>
        (cached ??= discovery
          .getProviders({ metadataKey: System1ProviderDefinition.KEY })
          .map((wrapper) => wrapper.instance as ProviderDefinition)
          .filter((instance) => instance !== undefined && instance !== null)),
    };
  },
};
