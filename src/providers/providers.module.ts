import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EngineHttpClient } from './http/engine-http.client';
import { MockProviderDefinition } from './mock.provider';
import { ProviderRegistry } from './provider-registry.service';
import { providerDefinitionsToken, SYSTEM1_PROVIDERS } from './providers.token';

/** The built-in engines. Teams add theirs from their own module (see `System1Engine`). */
const BUILT_IN = [MockProviderDefinition];

@Module({
  imports: [DiscoveryModule],
  providers: [...BUILT_IN, EngineHttpClient, providerDefinitionsToken, ProviderRegistry],
  exports: [ProviderRegistry, SYSTEM1_PROVIDERS, EngineHttpClient],
})
export class ProvidersModule {}
