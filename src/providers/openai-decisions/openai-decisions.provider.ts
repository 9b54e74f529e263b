import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { deepFreeze } from '../../common/deep-freeze';
import { flag, integer, text } from '../../config/setting-types';
import { EngineStatusError, MalformedResponseError } from '../../decisions/errors/decision-error';
import { IMAGE_MEDIA_TYPES } from '../../decisions/questions/question.types';
import {
  type AttemptContext,
  type EvaluateReply,
  type EvaluateRequest,
  type HealthProbeResult,
  type ProviderCapabilities,
  type ProviderCreateContext,
  type ProviderDefinition,
  ProviderSettingError,
  type ProviderSettingSpecs,
  type System1Provider,
} from '../../decisions/registry/provider.interface';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { isLoopbackHost } from '../http/endpoint';
import { type EngineConnection, hostedConnection } from '../http/engine-connection';
import { EngineHttpClient } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import { decisionsRequest } from './decisions-request';
import { readDecisionsReply } from './decisions-reply';

const NAME = 'openai-decisions';
export const OPENAI_DECISIONS_KEY_VARIABLE = 'SYSTEM1_OPENAI_DECISIONS_API_KEY';
/** The API's own limits (decisions.d.ts): 2-255 choices per question, 1-400 questions per request. */
const API_MAX_CHOICES = 255;
const API_MAX_QUESTIONS = 400;
/** "at most 128 image parts" (wire-contracts §10.1). */
const API_MAX_IMAGES = 128;
/** How many served models a health detail names before it stops listing. */
const LISTED_MODELS = 8;

type OpenAiDecisionsSettings = {
  endpoint: string;
  path: string;
  model: string;
  max_choices: number;
  max_questions: number;
  images: boolean;
};

/**
 * An engine speaking OpenAI's Decisions API (OpenAI, Fireworks, Vercel AI Gateway, SGLang, LiteLLM): every
 * typed question of a call in one request. How it maps decisions onto the engine: docs/engines.md#openai-decisions.
 */
@Injectable()
@System1ProviderDefinition()
export class OpenAiDecisionsProviderDefinition implements ProviderDefinition<OpenAiDecisionsSettings> {
  readonly keyVariable = OPENAI_DECISIONS_KEY_VARIABLE;
  readonly name = NAME;
  readonly description = `an engine speaking OpenAI's Decisions API (POST /v1/decisions): every question in one request; key ${OPENAI_DECISIONS_KEY_VARIABLE}`;
  readonly settings: ProviderSettingSpecs<OpenAiDecisionsSettings> = {
    endpoint: httpEngineSettings('https://api.openai.com').endpoint,
    path: {
      type: text({ nonEmpty: true }),
      default: '/v1/decisions',
      describe: 'where decisions are posted under the endpoint (Fireworks: /inference/v1/decisions)',
    },
    model: { type: text({ nonEmpty: true }), default: 'gpt-6-luna', describe: 'the decision model asked' },
    max_choices: {
      type: integer({ min: 2, max: API_MAX_CHOICES }),
      default: API_MAX_CHOICES,
      describe: 'most candidates per choice question the host takes (Fireworks: 208)',
    },
    max_questions: {
      type: integer({ min: 1, max: API_MAX_QUESTIONS }),
      default: API_MAX_QUESTIONS,
      describe: 'most questions per request the host takes',
    },
    images: { type: flag(), default: true, describe: 'whether the host reads images (Fireworks: false)' },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(settings: OpenAiDecisionsSettings, context: ProviderCreateContext): System1Provider {
    if (!/^\/[^?#]*$/.test(settings.path) || settings.path.split('/').includes('..'))
      throw new ProviderSettingError(
        'path',
        `must be a path such as /v1/decisions, got ${JSON.stringify(settings.path)}`,
      );
    // A hosted API by nature: remote without allow_remote, but https unless on this machine (the key travels).
    return new OpenAiDecisionsProvider(hostedConnection(this.http, settings, this.keyVariable, context), settings);
  }
}

class OpenAiDecisionsProvider implements System1Provider {
  readonly name = NAME;
  private readonly fixed: ProviderCapabilities;

  constructor(
    private readonly connection: EngineConnection,
    private readonly settings: OpenAiDecisionsSettings,
  ) {
    // The pipeline refuses what is over these before sending, and the chain moves on.
    this.fixed = deepFreeze({
      batch: true,
      probabilities: true,
      model: settings.model,
      max_options: settings.max_choices,
      remote: !isLoopbackHost(connection.base.hostname),
      questions: {
        types: ['choice', 'noul', 'score'],
        max_questions: settings.max_questions,
        max_options: settings.max_choices,
        ...(settings.images && { images: { media_types: [...IMAGE_MEDIA_TYPES], max_count: API_MAX_IMAGES } }),
      },
    });
  }

  capabilities(): ProviderCapabilities {
    return this.fixed;
  }

  async evaluate(request: EvaluateRequest, { signal }: AttemptContext): Promise<EvaluateReply> {
    const body = decisionsRequest(request, this.settings.model);
    let reply: unknown;
    try {
      reply = (await this.connection.request('POST', this.settings.path, signal, { body })).body;
    } catch (error) {
      throw this.explainFailure(error);
    }
    return readDecisionsReply(reply, body.questions, this.name);
  }

  /** `GET` the models list beside the decisions route (`/v1/models`, Fireworks' `/inference/v1/models`). */
  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const path = this.settings.path.replace(/\/[^/]*$/, '/models');
    let body: unknown;
    try {
      body = (await this.connection.request('GET', path, signal)).body;
    } catch (error) {
      if (error instanceof EngineStatusError && (error.status === 401 || error.status === 403))
        return { ok: false, detail: `${error.message}; ${this.keyAdvice()}` };
      throw error;
    }
    const where = this.connection.base.host;
    if (!isRecord(body) || !Array.isArray(body.data))
      throw new MalformedResponseError(
        `GET ${path} at ${where} did not answer {"data": [...]}: check providers.${NAME}.path`,
      );
    const served = body.data.flatMap((entry) => (isRecord(entry) && typeof entry.id === 'string' ? [entry.id] : []));
    const { model } = this.settings;
    if (served.includes(model)) return { ok: true, detail: `${where} is up and lists model "${model}"` };
    const listed = served.slice(0, LISTED_MODELS).join(', ') + (served.length > LISTED_MODELS ? ', ...' : '');
    return { ok: true, detail: `${where} is up, but model "${model}" is not listed (lists: ${listed || 'none'})` };
  }

  /**
   * A failure with the user's next step after the client's words (which carry the host's message, secrets
   * scrubbed, and any Retry-After); the status, and so the code, is kept.
   */
  private explainFailure(error: unknown): unknown {
    if (!(error instanceof EngineStatusError)) return error;
    const words = this.meaning(error.status);
    return words ? new EngineStatusError(error.status, `${error.message}; ${words}`, error.retryAfterS) : error;
  }

  private meaning(status: number): string | undefined {
    const { model, path } = this.settings;
    if (status === 401 || status === 403) return this.keyAdvice();
    if (status === 404)
      return `the host knows no model "${model}" or no Decisions API at ${path}: check providers.${NAME}.model and path`;
    if (status === 429) return 'the host is rate limiting this key';
    return status >= 500 && status < 600 ? `the host failed (HTTP ${status})` : undefined;
  }

  private keyAdvice(): string {
    return this.connection.apiKey()
      ? `the host refused the key in ${OPENAI_DECISIONS_KEY_VARIABLE}: check it`
      : `the host wants a key: set ${OPENAI_DECISIONS_KEY_VARIABLE}`;
  }
}
