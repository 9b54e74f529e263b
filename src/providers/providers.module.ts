import { Module } from '@nestjs/common';
import { BUILT_IN_PROVIDERS } from './built-in';
import { EngineHttpClient } from './http/engine-http.client';

/** The built-in engines (found by their `@System1ProviderDefinition()` mark) and the HTTP client they share. */
@Module({
  providers: [...BUILT_IN_PROVIDERS, EngineHttpClient],
  exports: [EngineHttpClient],
})
export class ProvidersModule {}
