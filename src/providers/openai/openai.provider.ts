import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { flag } from '../../config/setting-types';
import { EngineHttpClient, EngineResponse } from '../http/engine-http.client';
import { EngineStatusError } from '../../decisions/errors/decision-error';
import { endpointUrl } from '../http/endpoint';
import { configuredEndpoint, secretFromEnv } from '../http/http-settings';
import {
  letterCapabilities,
  LetterChatSettings,
  letterChatSettings,
  requiredModel,
} from '../letters/letter-chat-settings';
import { letterAnswer, letterMessages, TOP_LOGPROBS } from '../letters/letter-choice';
import {
  AttemptContext,
  HealthProbeResult,
  ProviderCreateContext,
  ProviderDefinition,
  ProviderSettingSpecs,
  System1Provider,
} from '../../decisions/registry/provider.interface';
import { MalformedResponseError } from '../../decisions/errors/decision-error';
import { ChoiceAsk, ChoiceCapabilities, ChoiceProvider, ChoiceState, ChoicePick } from '../choice/choice-provider';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';

const DEFAULT_ENDPOINT = 'http://127.0.0.1:8000';
const MODEL_HINT = 'the name the server serves, see GET /v1/models';
export const OPENAI_KEY_VARIABLE = 'SYSTEM1_OPENAI_API_KEY';
/** How many served models a health detail names before it stops listing. */
const LISTED_MODELS = 8;

type OpenAiSettings = LetterChatSettings & { disable_thinking: boolean };

/**
 * An OpenAI-compatible chat server (vLLM, llama-server, LM Studio, OpenAI), asked by letter with logprobs.
 * How it maps decisions onto the engine: docs/engines.md#openai.
 */
@Injectable()
@System1ProviderDefinition()
export class OpenAiProviderDefinition implements ProviderDefinition<OpenAiSettings> {
  readonly keyVariable = OPENAI_KEY_VARIABLE;
  readonly name = 'openai';
  readonly description =
    'an OpenAI-compatible chat server with logprobs (vLLM, SGLang, llama-server): options as letters';
  readonly settings: ProviderSettingSpecs<OpenAiSettings> = {
    ...letterChatSettings(DEFAULT_ENDPOINT, MODEL_HINT),
    disable_thinking: {
      type: flag(),
      default: false,
      describe: 'send chat_template_kwargs.enable_thinking = false, for reasoning models (some servers reject it)',
    },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(settings: OpenAiSettings, { env }: ProviderCreateContext): System1Provider {
    const model = requiredModel(settings, MODEL_HINT);
    const endpoint = configuredEndpoint(settings);
    return new OpenAiProvider(this.http, endpoint, model, {
      allowRemote: settings.allow_remote,
      disableThinking: settings.disable_thinking,
      env,
    });
  }
}

interface OpenAiOptions {
  allowRemote: boolean;
  disableThinking: boolean;
  env: ProviderCreateContext['env'];
}

class OpenAiProvider extends ChoiceProvider {
  readonly name = 'openai';

  constructor(
    private readonly http: EngineHttpClient,
    private readonly endpoint: URL,
    private readonly model: string,
    private readonly options: OpenAiOptions,
  ) {
    super();
  }

  protected choiceCapabilities(): ChoiceCapabilities {
    return letterCapabilities(this.model, { disable_thinking: this.options.disableThinking });
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    let reply: EngineResponse;
    try {
      reply = await this.call('GET', '/models', signal);
    } catch (error) {
      if (isKeyRefusal(error)) return { ok: false, detail: this.keyRefused(error) };
      throw error;
    }
    const body = reply.body;
    if (!isRecord(body) || !Array.isArray(body.data)) {
      throw new MalformedResponseError(
        `GET /v1/models at ${this.endpoint.host} did not answer {"data": [...]}: is this an OpenAI-compatible server?`,
      );
    }
    const served = body.data.flatMap((entry) => (isRecord(entry) && typeof entry.id === 'string' ? [entry.id] : []));
    const where = `OpenAI-compatible server at ${this.endpoint.host}`;
    if (served.includes(this.model)) return { ok: true, detail: `${where}, model "${this.model}" listed` };
    const listed = served.slice(0, LISTED_MODELS).join(', ') + (served.length > LISTED_MODELS ? ', ...' : '');
    return {
      ok: true,
      detail: `${where} is up, but model "${this.model}" is not listed (serves: ${listed || 'none'})`,
    };
  }

  protected async pick(question: ChoiceAsk, state: ChoiceState, { signal }: AttemptContext): Promise<ChoicePick> {
    const request = {
      model: this.model,
      messages: letterMessages(question, state),
      max_tokens: 1,
      temperature: 0,
      stream: false,
      logprobs: true,
      top_logprobs: TOP_LOGPROBS,
      ...(this.options.disableThinking && { chat_template_kwargs: { enable_thinking: false } }),
    };
    let reply: EngineResponse;
    try {
      reply = await this.call('POST', '/chat/completions', signal, request);
    } catch (error) {
      throw isKeyRefusal(error) ? new EngineStatusError(error.status, this.keyRefused(error)) : error;
    }
    const body = reply.body;
    const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isRecord(choice)) {
      throw new MalformedResponseError(`the reply from ${this.endpoint.host} is not a chat completion (no choices)`);
    }
    return letterAnswer(question, isRecord(choice.logprobs) ? choice.logprobs.content : undefined, {
      label: `openai ${this.model}`,
      noLogprobsHint:
        "LM Studio and Ollama's /v1 layer return none; use vLLM, SGLang or llama-server, or the ollama provider",
      notALetterHint: this.options.disableThinking ? undefined : 'a reasoning model? set disable_thinking = true',
    });
  }

  private keyRefused(error: EngineStatusError): string {
    const problem = this.key()
      ? `the server refused the key in ${OPENAI_KEY_VARIABLE}`
      : `the server wants a key: set ${OPENAI_KEY_VARIABLE}`;
    return `${problem} (${error.message})`;
  }

  private key(): string | undefined {
    return secretFromEnv(this.options.env, OPENAI_KEY_VARIABLE);
  }

  private call(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<EngineResponse> {
    const key = this.key();
    return this.http.request({
      method,
      url: endpointUrl(this.endpoint, `${hasV1(this.endpoint) ? '' : '/v1'}${path}`),
      body,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal,
      allowRemote: this.options.allowRemote,
      secrets: key ? [key] : [],
    });
  }
}

function hasV1(endpoint: URL): boolean {
  return /\/v1\/*$/.test(endpoint.pathname);
}

function isKeyRefusal(error: unknown): error is EngineStatusError {
  return error instanceof EngineStatusError && (error.status === 401 || error.status === 403);
}
