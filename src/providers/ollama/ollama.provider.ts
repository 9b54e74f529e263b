import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { EngineHttpClient, EngineResponse } from '../http/engine-http.client';
import { EngineStatusError } from '../../decisions/errors/decision-error';
import { endpointUrl } from '../http/endpoint';
import { configuredEndpoint } from '../http/http-settings';
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
  ProviderDefinition,
  System1Provider,
} from '../../decisions/registry/provider.interface';
import { MalformedResponseError } from '../../decisions/errors/decision-error';
import { ChoiceAsk, ChoiceCapabilities, ChoiceProvider, ChoiceState, ChoicePick } from '../choice/choice-provider';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { hasLogprobs, OLLAMA_MIN_VERSION, withTag } from './ollama-version';

const DEFAULT_ENDPOINT = 'http://127.0.0.1:11434';
const MODEL_HINT = 'see `ollama list`, e.g. "gemma4:e4b"';
/** How many installed models a health detail names before it stops listing. */
const LISTED_MODELS = 8;

/**
 * A chat model served by Ollama, asked by letter with logprobs.
 * How it maps decisions onto the engine: docs/engines.md#ollama.
 */
@Injectable()
@System1ProviderDefinition()
export class OllamaProviderDefinition implements ProviderDefinition<LetterChatSettings> {
  readonly name = 'ollama';
  /** Ollama's API takes no key. */
  readonly keyVariable = undefined;
  readonly description =
    `a local chat model through Ollama ${OLLAMA_MIN_VERSION}+: ` + 'options as letters, probabilities from logprobs';
  readonly settings = letterChatSettings(DEFAULT_ENDPOINT, MODEL_HINT);

  constructor(private readonly http: EngineHttpClient) {}

  create(settings: LetterChatSettings): System1Provider {
    const model = requiredModel(settings, MODEL_HINT);
    const endpoint = configuredEndpoint(settings);
    return new OllamaProvider(this.http, endpoint, model, settings.allow_remote);
  }
}

class OllamaProvider extends ChoiceProvider {
  readonly name = 'ollama';

  constructor(
    private readonly http: EngineHttpClient,
    private readonly endpoint: URL,
    private readonly model: string,
    private readonly allowRemote: boolean,
  ) {
    super();
  }

  protected choiceCapabilities(): ChoiceCapabilities {
    return letterCapabilities(this.model, { min_version: OLLAMA_MIN_VERSION });
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const [versionReply, tagsReply] = await Promise.all([
      this.call('GET', '/api/version', signal),
      this.call('GET', '/api/tags', signal),
    ]);
    const version = versionReply.body;
    if (!isRecord(version) || typeof version.version !== 'string') {
      throw new MalformedResponseError(
        `GET /api/version at ${this.endpoint.host} did not answer {"version": ...}: is this Ollama?`,
      );
    }
    const installed = installedModels(tagsReply.body);
    if (!installed) {
      throw new MalformedResponseError(
        `GET /api/tags at ${this.endpoint.host} did not answer {"models": [...]}: is this Ollama?`,
      );
    }

    const problems: string[] = [];
    const current = hasLogprobs(version.version);
    if (current === false) {
      problems.push(
        `Ollama ${version.version} is too old: logprobs need ${OLLAMA_MIN_VERSION} or later, upgrade Ollama`,
      );
    }
    const pulled = installed.some((name) => withTag(name) === withTag(this.model));
    if (!pulled) {
      const listed = installed.slice(0, LISTED_MODELS).join(', ') + (installed.length > LISTED_MODELS ? ', ...' : '');
      problems.push(
        `model "${this.model}" is not pulled (installed: ${listed || 'none'}); run \`ollama pull ${this.model}\``,
      );
    }
    if (problems.length > 0) return { ok: false, detail: `Ollama at ${this.endpoint.host}: ${problems.join('; ')}` };
    const versionNote =
      current === undefined ? `version ${version.version} (logprobs support not checked)` : version.version;
    return { ok: true, detail: `Ollama ${versionNote} at ${this.endpoint.host}, model "${this.model}" installed` };
  }

  protected async pick(question: ChoiceAsk, state: ChoiceState, { signal }: AttemptContext): Promise<ChoicePick> {
    const request = {
      model: this.model,
      messages: letterMessages(question, state),
      stream: false,
      think: false,
      options: { temperature: 0, num_predict: 1, seed: 0 },
      logprobs: true,
      top_logprobs: TOP_LOGPROBS,
    };
    const { body } = await this.call('POST', '/api/chat', signal, request).catch((error: unknown) => {
      throw this.explained(error);
    });
    if (!isRecord(body) || !isRecord(body.message)) {
      throw new MalformedResponseError(
        `the reply from ${this.endpoint.host} is not an Ollama chat response (no message)`,
      );
    }
    return letterAnswer(question, body.logprobs, {
      label: `ollama ${this.model}`,
      noLogprobsHint:
        `Ollama returns them from ${OLLAMA_MIN_VERSION} on; ` +
        'upgrade Ollama (its /v1 compat layer returns none either)',
    });
  }

  /** Ollama's 404 for a chat names a model that is not pulled; say so and how to fix it. */
  private explained(error: unknown): unknown {
    if (error instanceof EngineStatusError && error.status === 404 && /model .*not found/i.test(error.message)) {
      return new EngineStatusError(
        404,
        `model "${this.model}" is not pulled into Ollama: run \`ollama pull ${this.model}\` (${error.message})`,
      );
    }
    return error;
  }

  private call(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<EngineResponse> {
    return this.http.request({
      method,
      url: endpointUrl(this.endpoint, path),
      body,
      signal,
      allowRemote: this.allowRemote,
    });
  }
}

/** The names `GET /api/tags` lists, or undefined when the reply is not that shape. */
function installedModels(body: unknown): string[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
  const names = body.models.flatMap((entry) => {
    if (!isRecord(entry)) return [];
    return [entry.name, entry.model].filter((name): name is string => typeof name === 'string');
  });
  return [...new Set(names)];
}
