import { AnthropicProviderDefinition } from './anthropic/anthropic.provider';
import type { EngineHttpClient } from './http/engine-http.client';
import { MockProviderDefinition } from './mock.provider';
import { OllamaProviderDefinition } from './ollama/ollama.provider';
import { OpenAiProviderDefinition } from './openai/openai.provider';
import { OpenAiDecisionsProviderDefinition } from './openai-decisions/openai-decisions.provider';
import type { ProviderDefinition } from '../decisions/registry/provider.interface';
import { CloudflareProviderDefinition } from './system-one/cloudflare.provider';
import { LayaProviderDefinition } from './system-one/laya.provider';
import { SystemOneProviderDefinition } from './system-one/systemone.provider';
import { TypeSafeProviderDefinition } from './system-one/typesafe.provider';
import { VonProviderDefinition } from './system-one/von.provider';

/**
 * A built-in engine's definition says which variable its key is read from, or `undefined` for an engine that
 * takes none: the suites that keep keys out of replies and logs (echoed keys, the secret sweep) cover every
 * built-in with a `keyVariable`, so a keyed engine cannot join this list without being under them.
 */
export type BuiltInProviderDefinition = ProviderDefinition & { readonly keyVariable: string | undefined };

/**
 * The built-in engines, one line each: the Nest container registers them (ProvidersModule), and the hook
 * processes, which skip the container, build them by hand from the same list. Teams add theirs from their
 * own module (see `System1ProviderDefinition`).
 */
export const BUILT_IN_PROVIDERS: (new (http: EngineHttpClient) => BuiltInProviderDefinition)[] = [
  MockProviderDefinition,
  LayaProviderDefinition,
  VonProviderDefinition,
  SystemOneProviderDefinition,
  TypeSafeProviderDefinition,
  CloudflareProviderDefinition,
  OllamaProviderDefinition,
  OpenAiProviderDefinition,
  OpenAiDecisionsProviderDefinition,
  AnthropicProviderDefinition,
];
