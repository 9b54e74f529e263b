import { AnthropicProviderDefinition } from './anthropic/anthropic.provider';
import type { EngineHttpClient } from './http/engine-http.client';
import { MockProviderDefinition } from './mock.provider';
import { OllamaProviderDefinition } from './ollama/ollama.provider';
import { OpenAiProviderDefinition } from './openai/openai.provider';
import type { ProviderDefinition } from '../decisions/registry/provider.interface';
import { CloudflareProviderDefinition } from './system-one/cloudflare.provider';
import { LayaProviderDefinition } from './system-one/laya.provider';
import { SystemOneProviderDefinition } from './system-one/systemone.provider';
import { TypeSafeProviderDefinition } from './system-one/typesafe.provider';
import { VonProviderDefinition } from './system-one/von.provider';

/**
 * The built-in engines, one line each: the Nest container registers them (ProvidersModule), and the hook
 * processes, which skip the container, build them by hand from the same list. Teams add theirs from their
 * own module (see `System1Engine`).
 */
export const BUILT_IN_PROVIDERS: (new (http: EngineHttpClient) => ProviderDefinition)[] = [
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
