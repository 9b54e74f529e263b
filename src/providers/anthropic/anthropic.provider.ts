import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { integer, text } from '../../config/setting-types';
import { endpointUrl } from '../http/endpoint';
import { EngineHttpClient } from '../http/engine-http.client';
import { configuredEndpoint, httpEngineSettings, secretFromEnv } from '../http/http-settings';
import {
  AttemptContext,
  HealthProbeResult,
  ProviderCreateContext,
  ProviderDefinition,
  ProviderSettingSpecs,
  System1Provider,
} from '../../decisions/registry/provider.interface';
import { ProviderError } from '../../decisions/errors/decision-error';
import { ChoiceAsk, ChoiceCapabilities, ChoiceProvider, ChoiceState, ChoicePick } from '../choice/choice-provider';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { API_KEY_VARIABLE, explainFailure, missingKeyError } from './anthropic.errors';
import { answerFromMessage } from './anthropic.reply';
import { anthropicHeaders, messagesRequest } from './anthropic.request';

type AnthropicSettings = {
  endpoint: string;
  model: string;
  max_tokens: number;
};

/** The schema's own limit: the tool's enum lists every option, and the request allows no more. */
const MAX_OPTIONS = 256;

/**
 * A hosted Claude model through the Messages API, with a forced tool call.
 * How it maps decisions onto the engine: docs/engines.md#anthropic.
 */
@Injectable()
@System1ProviderDefinition()
export class AnthropicProviderDefinition implements ProviderDefinition<AnthropicSettings> {
  readonly keyVariable = API_KEY_VARIABLE;
  readonly name = 'anthropic';
  readonly description =
    'a hosted Claude model through the Anthropic Messages API; ' +
    'every request leaves this machine and is billed per token';
  readonly settings: ProviderSettingSpecs<AnthropicSettings> = {
    endpoint: httpEngineSettings('https://api.anthropic.com').endpoint,
    model: { type: text({ nonEmpty: true }), default: 'claude-haiku-5-5', describe: 'the Claude model asked' },
    max_tokens: {
      type: integer({ min: 64, max: 8192 }),
      default: 256,
      describe: 'output token limit of one answer (raise it if replies stop at max_tokens)',
    },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(settings: AnthropicSettings, { env }: ProviderCreateContext): System1Provider {
    // The hosted API is remote by nature; the key still never travels in clear text off this machine.
    const endpoint = configuredEndpoint(settings, { allowRemote: true, httpsUnlessLoopback: true });
    return new AnthropicProvider(this.http, endpoint, settings, env);
  }
}

class AnthropicProvider extends ChoiceProvider {
  readonly name = 'anthropic';

  constructor(
    private readonly http: EngineHttpClient,
    private readonly endpoint: URL,
    private readonly settings: AnthropicSettings,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    super();
  }

  protected choiceCapabilities(): ChoiceCapabilities {
    return {
      max_options: MAX_OPTIONS,
      batch: false,
      probabilities: false,
      model: this.settings.model,
      confidence: 'self-reported by the model',
      remote: true,
    };
  }

  protected async pick(question: ChoiceAsk, state: ChoiceState, { signal }: AttemptContext): Promise<ChoicePick> {
    const { body } = await this.call(
      this.apiKey(),
      signal,
      'POST',
      '/v1/messages',
      messagesRequest(question, state, this.settings),
    );
    return answerFromMessage(body, question, { model: this.settings.model, maxTokens: this.settings.max_tokens });
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const { model } = this.settings;
    try {
      const { body } = await this.call(this.apiKey(), signal, 'GET', `/v1/models/${encodeURIComponent(model)}`);
      if (!isRecord(body) || typeof body.id !== 'string') {
        return {
          ok: false,
          detail: `GET /v1/models/${model} did not answer with a model: is ${this.endpoint.host} the Anthropic API?`,
        };
      }
      const name = typeof body.display_name === 'string' ? ` (${body.display_name})` : '';
      return {
        ok: true,
        detail: `model ${body.id}${name} is available at ${this.endpoint.host}; every request leaves this machine`,
      };
    } catch (error) {
      if (error instanceof ProviderError) return { ok: false, detail: error.message };
      throw error;
    }
  }

  /** Read on every call, so a rotated key takes effect without a restart. */
  private apiKey(): string {
    const key = secretFromEnv(this.env, API_KEY_VARIABLE);
    if (key === undefined) throw missingKeyError();
    return key;
  }

  private async call(apiKey: string, signal: AbortSignal, method: 'GET' | 'POST', path: string, body?: unknown) {
    try {
      return await this.http.request({
        method,
        url: endpointUrl(this.endpoint, path),
        body,
        headers: anthropicHeaders(apiKey),
        signal,
        allowRemote: true,
        secrets: [apiKey],
      });
    } catch (error) {
      throw explainFailure(error, this.settings.model);
    }
  }
}
