import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { EngineHttpClient, safeEngineText } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import { AttemptContext, HealthProbeResult, ProviderCapabilities, ProviderCreateContext, ProviderDefinition, ProviderSettingError, ProviderSettingSpec, System1Provider } from '../../decisions/provider.interface';
import { ProviderError } from '../../decisions/decision-error';
import { System1Engine } from '../../decisions/providers.token';
import { QuestionCapabilities } from '../../decisions/question-capabilities';
import { hostedConnection, SystemOneAdapter, SystemOneConnection } from './systemone.adapter';

/** The Clef models Workers AI serves, by the short name the request body carries. */
export const CLOUDFLARE_MODELS = ['clef', 'clef-flash'] as const;
export const CLOUDFLARE_MAX_OPTIONS = 255;
/** Workers AI refuses a request with more questions than this. */
export const CLOUDFLARE_MAX_QUESTIONS = 64;
const KEY_VARIABLE = 'SYSTEM1_CLOUDFLARE_API_TOKEN';

interface CloudflareSettings {
  account_id?: string;
  endpoint: string;
  model: (typeof CLOUDFLARE_MODELS)[number];
}

/**
 * Cloudflare Workers AI's Clef, over the System One protocol in Cloudflare's envelope.
 * How it maps decisions onto the engine: docs/engines.md#cloudflare.
 */
@Injectable()
@System1Engine()
export class CloudflareProviderDefinition implements ProviderDefinition {
  readonly keyVariable = KEY_VARIABLE;
  readonly name = 'cloudflare';
  readonly description = 'Cloudflare Workers AI Clef (POST .../ai/run/@cf/cloudflare/<model>); needs SYSTEM1_CLOUDFLARE_API_TOKEN; billed';
  readonly settings: Record<keyof CloudflareSettings, ProviderSettingSpec> = {
    account_id: { type: text({ nonEmpty: true }), describe: 'the Cloudflare account that runs Workers AI (required)' },
    endpoint: httpEngineSettings('https://api.cloudflare.com').endpoint,
    model: { type: text({ choices: CLOUDFLARE_MODELS }), default: 'clef', describe: 'Clef model: clef or clef-flash' },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(raw: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider {
    const settings = raw as unknown as CloudflareSettings;
    const accountId = settings.account_id?.trim();
    if (!accountId) {
      throw new ProviderSettingError('account_id', 'is required: the Cloudflare account id that runs Workers AI (shown in the Cloudflare dashboard)');
    }
    return new CloudflareProvider(hostedConnection(this.http, raw, KEY_VARIABLE, context), settings.model, accountId);
  }
}

class CloudflareProvider extends SystemOneAdapter {
  readonly name = 'cloudflare';

  constructor(
    connection: SystemOneConnection,
    model: string,
    private readonly accountId: string,
  ) {
    super(connection, model);
  }

  override capabilities(): ProviderCapabilities {
    return { ...super.capabilities(), max_options: CLOUDFLARE_MAX_OPTIONS, remote: true };
  }

  protected override decisionPath(): string {
    return `/client/v4/accounts/${encodeURIComponent(this.accountId)}/ai/run/@cf/cloudflare/${this.model}`;
  }

  protected override unwrapReply(body: unknown): unknown {
    if (!isRecord(body) || !Object.hasOwn(body, 'success')) return body;
    // A flag that is not a boolean is not echoed: engine text is shown only scrubbed, through firstError.
    const success = typeof body.success === 'boolean' ? String(body.success) : 'not true';
    if (body.success !== true) throw new ProviderError(`Cloudflare's reply says success: ${success}${this.firstError(body.errors)}`);
    return body.result;
  }

  /** Workers AI's published limits (wire-contracts §1.1). */
  protected override questionCapabilities(): QuestionCapabilities {
    return { types: ['choice', 'noul', 'score'], max_questions: CLOUDFLARE_MAX_QUESTIONS, max_options: CLOUDFLARE_MAX_OPTIONS, max_levels: 10 };
  }

  protected override checkReady(): void {
    if (!this.apiKey()) throw new ProviderError(this.missingKey());
  }

  protected override keyAdvice(): string {
    return `Cloudflare refused the API token: check ${KEY_VARIABLE} (a Workers AI token for account_id)`;
  }

  protected attribution(body: Record<string, unknown>, model: string | undefined): string {
    return `cloudflare ${model ?? this.model}`;
  }

  /**
   * Workers AI has no health route, and the one sure probe, a decision, is billed; so nothing is called.
   * Cloudflare's token-verify routes were left out on purpose: a user token and an account-owned token
   * verify at different routes, and neither says whether the token may run Workers AI on this account, so
   * their "ok" would promise what it cannot know. A bad token shows on the first decision, as "refused".
   */
  async health(_context: AttemptContext): Promise<HealthProbeResult> {
    if (!this.apiKey()) return { ok: false, detail: this.missingKey() };
    return { ok: true, detail: `${KEY_VARIABLE} is set; Workers AI has no health endpoint, so the token and the account are checked on the first decision; model ${this.model}` };
  }

  /** `: error 5006: Bad input` from the envelope's first error, made safe to show. */
  private firstError(errors: unknown): string {
    const first = Array.isArray(errors) ? errors[0] : undefined;
    if (!isRecord(first)) return ' with no error listed';
    const code = typeof first.code === 'number' || typeof first.code === 'string' ? `error ${first.code}` : 'an error';
    const message = typeof first.message === 'string' && first.message.trim() !== '' ? `: ${first.message}` : '';
    return `: ${safeEngineText(`${code}${message}`, [this.apiKey()])}`;
  }

  private missingKey(): string {
    return `Cloudflare Workers AI needs an API token: set ${KEY_VARIABLE} (requests are billed to its account)`;
  }
}
