import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AnthropicProviderDefinition } from './anthropic/anthropic.provider';
import { EngineHttpClient } from './http/engine-http.client';
import { MockProviderDefinition } from './mock.provider';
import { OllamaProviderDefinition } from './ollama/ollama.provider';
import { OpenAiProviderDefinition } from './openai/openai.provider';
import { ProviderRegistry } from './provider-registry.service';
import { providerDefinitionsToken, SYSTEM1_PROVIDERS } from './providers.token';
import { CloudflareProviderDefinition } from './systemone/cloudflare.provider';
import { LayaProviderDefinition } from './systemone/laya.provider';
import { SystemOneProviderDefinition } from './systemone/systemone.provider';
import { TypeSafeProviderDefinition } from './systemone/typesafe.provider';
import { VonProviderDefinition } from './systemone/von.provider';

/** The built-in engines. Teams add theirs from their own module (see `System1Engine`). */
const BUILT_IN = [
  MockProviderDefinition,
  LayaProviderDefinition,
  VonProviderDefinition,
  SystemOneProviderDefinition,
  TypeSafeProviderDefinition,
  CloudflareProviderDefinition,
  OllamaProviderDefinition,
  OpenAiProviderDefinition,
  AnthropicProviderDefinition,
];

@Module({
  imports: [DiscoveryModule],
  providers: [...BUILT_IN, EngineHttpClient, providerDefinitionsToken, ProviderRegistry],
  exports: [ProviderRegistry, SYSTEM1_PROVIDERS, EngineHttpClient],
})
export class ProvidersModule {}
