import { Injectable } from '@nestjs/common';
import { text } from '../../config/setting-types';
import { EngineStatusError } from '../../decisions/errors/decision-error';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { EngineHttpClient } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import type { SystemOneDialect } from './systemone-dialect';
import { SystemOneDefinition } from './systemone.definition';

/** The model ids TypeSafe serves; the versioned ones are fixed, the aliases move. */
export const TYPESAFE_MODELS = ['jev-1.13.0', 'jev-1.14.0', 'jev-latest', 'jev-preview'] as const;
export const TYPESAFE_MAX_OPTIONS = 255;
/** The models that take images and box questions (dsh-system1 "TypeSafe capabilities and limits"). */
const TYPESAFE_IMAGE_MODELS = ['jev-1.14.0', 'jev-preview'];
const KEY_VARIABLE = 'SYSTEM1_TYPESAFE_API_KEY';
const missingKey = (variable: string) => `TypeSafe needs an API key: set ${variable} (requests are billed to that key)`;
const refusedKey = (variable: string) => `TypeSafe refused the API key: check ${variable}`;

/** `model` is one of {@link TYPESAFE_MODELS}: its setting type allows no other. */
type TypeSafeSettings = { endpoint: string; model: string };

/**
 * TypeSafe's hosted Jev API, over the System One protocol.
 * How it maps decisions onto the engine: docs/engines.md#typesafe.
 */
export const TYPESAFE: SystemOneDialect<TypeSafeSettings> = {
  name: 'typesafe',
  description: `TypeSafe hosted Jev API (POST /v1/systemone); needs ${KEY_VARIABLE}; billed`,
  keyVariable: KEY_VARIABLE,
  settings: {
    endpoint: httpEngineSettings('https://api.typesafe.ai').endpoint,
    model: { type: text({ choices: TYPESAFE_MODELS }), default: 'jev-latest', describe: 'Jev model id or alias' },
  },
  reach: 'hosted',
  /** TypeSafe wants its experimental features opted into by header. */
  headers: (request): Record<string, string> => {
    const boxes = Object.values(request.questions).some((question) => question.type === 'box');
    const experimental = Boolean(request.images?.length) || boxes;
    return experimental ? { 'TypeSafe-Danger-Zone-Images': 'true' } : {};
  },
  /** Jev 1.14 and the preview alias locate things in images (TypeSafe's experimental extension). */
  limits: ({ model }) => {
    const images = TYPESAFE_IMAGE_MODELS.includes(model);
    return {
      types: images ? ['choice', 'noul', 'score', 'box'] : ['choice', 'noul', 'score'],
      max_options: TYPESAFE_MAX_OPTIONS,
      max_levels: 10,
      ...(images && { images: { media_types: ['image/png', 'image/jpeg'], max_count: 4 } }),
      long_context: { max_tokens: 262_144 },
    };
  },
  facts: { max_options: TYPESAFE_MAX_OPTIONS, remote: true },
  key: { required: missingKey, refused: refusedKey },
  health: async (engine, { signal }) => {
    if (!engine.apiKey()) return { ok: false, detail: missingKey(engine.keyVariable) };
    try {
      await engine.get('/v1/models', signal);
    } catch (error) {
      if (error instanceof EngineStatusError && (error.status === 401 || error.status === 403)) {
        return { ok: false, detail: `${error.message}; ${refusedKey(engine.keyVariable)}` };
      }
      throw error;
    }
    return { ok: true, detail: `TypeSafe API reachable and the key accepted; model ${engine.settings.model}` };
  },
};

@Injectable()
@System1ProviderDefinition()
export class TypeSafeProviderDefinition extends SystemOneDefinition<TypeSafeSettings> {
  constructor(http: EngineHttpClient) {
    super(http, TYPESAFE);
  }
}
