import { Injectable } from '@nestjs/common';
import { text } from '../../config/setting-types';
import { EngineHttpClient } from '../http/engine-http.client';
import { EngineStatusError } from '../../decisions/decision-error';
import { httpEngineSettings } from '../http/http-settings';
import { AttemptContext, EvaluateRequest, HealthProbeResult, ProviderCapabilities, ProviderCreateContext, ProviderDefinition, ProviderSettingSpec, System1Provider } from '../../decisions/provider.interface';
import { ProviderError } from '../../decisions/decision-error';
import { System1Engine } from '../../decisions/providers.token';
import { hostedConnection, SystemOneAdapter } from './systemone.adapter';
import { QuestionCapabilities } from '../../decisions/question-capabilities';

/** The model ids TypeSafe serves; the versioned ones are fixed, the aliases move. */
export const TYPESAFE_MODELS = ['jev-1.13.0', 'jev-1.14.0', 'jev-latest', 'jev-preview'] as const;
export const TYPESAFE_MAX_OPTIONS = 255;
/** The models that take images and box questions (dsh-system1 "TypeSafe capabilities and limits"). */
const TYPESAFE_IMAGE_MODELS = ['jev-1.14.0', 'jev-preview'];
const KEY_VARIABLE = 'SYSTEM1_TYPESAFE_API_KEY';

interface TypeSafeSettings {
  endpoint: string;
  model: string;
}

/**
 * TypeSafe's hosted Jev API, over the System One protocol.
 * How it maps decisions onto the engine: docs/engines.md#typesafe.
 */
@Injectable()
@System1Engine()
export class TypeSafeProviderDefinition implements ProviderDefinition {
  readonly keyVariable = KEY_VARIABLE;
  readonly name = 'typesafe';
  readonly description = 'TypeSafe hosted Jev API (POST /v1/systemone); needs SYSTEM1_TYPESAFE_API_KEY; billed';
  readonly settings: Record<keyof TypeSafeSettings, ProviderSettingSpec> = {
    endpoint: httpEngineSettings('https://api.typesafe.ai').endpoint,
    model: { type: text({ choices: TYPESAFE_MODELS }), default: 'jev-latest', describe: 'Jev model id or alias' },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(raw: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider {
    const settings = raw as unknown as TypeSafeSettings;
    return new TypeSafeProvider(hostedConnection(this.http, raw, KEY_VARIABLE, context), settings.model);
  }
}

class TypeSafeProvider extends SystemOneAdapter {
  readonly name = 'typesafe';

  override capabilities(): ProviderCapabilities {
    return { ...super.capabilities(), max_options: TYPESAFE_MAX_OPTIONS, remote: true };
  }

  protected override checkReady(): void {
    if (!this.apiKey()) throw new ProviderError(this.missingKey());
  }

  /** Jev 1.14 and the preview alias locate things in images (TypeSafe's experimental extension). */
  protected override questionCapabilities(): QuestionCapabilities {
    const images = TYPESAFE_IMAGE_MODELS.includes(this.model ?? '');
    return {
      types: images ? ['choice', 'noul', 'score', 'box'] : ['choice', 'noul', 'score'],
      max_options: TYPESAFE_MAX_OPTIONS,
      max_levels: 10,
      ...(images && { images: { media_types: ['image/png', 'image/jpeg'], max_count: 4 } }),
      long_context: { max_tokens: 262_144 },
    };
  }

  /** TypeSafe wants its experimental features opted into by header. */
  protected override typedHeaders(request: EvaluateRequest): Record<string, string> {
    const experimental = Boolean(request.images?.length) || Object.values(request.questions).some((q) => q.type === 'box');
    return experimental ? { 'TypeSafe-Danger-Zone-Images': 'true' } : {};
  }

  protected override keyAdvice(): string {
    return `TypeSafe refused the API key: check ${KEY_VARIABLE}`;
  }

  protected attribution(body: Record<string, unknown>, model: string | undefined): string {
    return `typesafe ${model ?? this.model}`;
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    if (!this.apiKey()) return { ok: false, detail: this.missingKey() };
    try {
      await this.call('GET', '/v1/models', signal);
    } catch (error) {
      if (error instanceof EngineStatusError && (error.status === 401 || error.status === 403)) {
        return { ok: false, detail: `${error.message}; ${this.keyAdvice()}` };
      }
      throw error;
    }
    return { ok: true, detail: `TypeSafe API reachable and the key accepted; model ${this.model}` };
  }

  private missingKey(): string {
    return `TypeSafe needs an API key: set ${KEY_VARIABLE} (requests are billed to that key)`;
  }
}
