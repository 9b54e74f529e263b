import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BUILT_IN_PROVIDERS } from './built-in';
import { EngineHttpClient } from './http/engine-http.client';
import { ProviderRegistry } from '../decisions/provider-registry.service';
import { providerDefinitionsToken, SYSTEM1_PROVIDERS } from '../decisions/providers.token';

@Module({
  imports: [DiscoveryModule],
  providers: [...BUILT_IN_PROVIDERS, EngineHttpClient, providerDefinitionsToken, ProviderRegistry],
  exports: [ProviderRegistry, SYSTEM1_PROVIDERS, EngineHttpClient],
})
export class ProvidersModule {}
