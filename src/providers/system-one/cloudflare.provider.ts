import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { ProviderError } from '../../decisions/errors/decision-error';
import { ProviderSettingError } from '../../decisions/registry/provider.interface';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { EngineHttpClient, safeEngineText } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import type { SystemOneDialect } from './systemone-dialect';
import { SystemOneDefinition } from './systemone.definition';

/** The Clef models Workers AI serves, by the short name the request body carries. */
export const CLOUDFLARE_MODELS = ['clef', 'clef-flash'] as const;
export const CLOUDFLARE_MAX_OPTIONS = 255;
/** Workers AI refuses a request with more questions than this. */
export const CLOUDFLARE_MAX_QUESTIONS = 64;
const KEY_VARIABLE = 'SYSTEM1_CLOUDFLARE_API_TOKEN';
const missingKey = (variable: string) =>
  `Cloudflare Workers AI needs an API token: set ${variable} (requests are billed to its account)`;

/** `model` is one of {@link CLOUDFLARE_MODELS}: its setting type allows no other. */
type CloudflareSettings = { account_id?: string; endpoint: string; model: string };

/**
 * Cloudflare Workers AI's Clef, over the System One protocol in Cloudflare's envelope.
 * How it maps decisions onto the engine: docs/engines.md#cloudflare.
 */
export const CLOUDFLARE: SystemOneDialect<CloudflareSettings> = {
  name: 'cloudflare',
  description: `Cloudflare Workers AI Clef (POST .../ai/run/@cf/cloudflare/<model>); needs ${KEY_VARIABLE}; billed`,
  keyVariable: KEY_VARIABLE,
  settings: {
    account_id: { type: text({ nonEmpty: true }), describe: 'the Cloudflare account that runs Workers AI (required)' },
    endpoint: httpEngineSettings('https://api.cloudflare.com').endpoint,
    model: { type: text({ choices: CLOUDFLARE_MODELS }), default: 'clef', describe: 'Clef model: clef or clef-flash' },
  },
  reach: 'hosted',
  check: ({ account_id }) => {
    if (account_id?.trim()) return;
    const words = 'is required: the Cloudflare account id that runs Workers AI (shown in the Cloudflare dashboard)';
    throw new ProviderSettingError('account_id', words);
  },
  path: ({ account_id = '', model }) =>
    `/client/v4/accounts/${encodeURIComponent(account_id.trim())}/ai/run/@cf/cloudflare/${model}`,
  answer: {
    unwrap: (body, engine) => {
      if (!isRecord(body) || !Object.hasOwn(body, 'success')) return body;
      // A flag that is not a boolean is not echoed: engine text is shown only scrubbed, through firstError.
      const success = typeof body.success === 'boolean' ? String(body.success) : 'not true';
      if (body.success !== true) {
        const listed = firstError(body.errors, engine.apiKey());
        throw new ProviderError(`Cloudflare's reply says success: ${success}${listed}`);
      }
      return body.result;
    },
  },
  /** Workers AI's published limits (wire-contracts §1.1). */
  limits: () => ({
    types: ['choice', 'noul', 'score'],
    max_questions: CLOUDFLARE_MAX_QUESTIONS,
    max_options: CLOUDFLARE_MAX_OPTIONS,
    max_levels: 10,
  }),
  facts: { max_options: CLOUDFLARE_MAX_OPTIONS, remote: true },
  key: {
    required: missingKey,
    refused: (variable) => `Cloudflare refused the API token: check ${variable} (a Workers AI token for account_id)`,
  },
  /**
   * Workers AI has no health route, and the one sure probe, a decision, is billed; so nothing is called.
   * Cloudflare's token-verify routes were left out on purpose: a user token and an account-owned token
   * verify at different routes, and neither says whether the token may run Workers AI on this account, so
   * their "ok" would promise what it cannot know. A bad token shows on the first decision, as "refused".
   */
  health: async (engine) => {
    if (!engine.apiKey()) return { ok: false, detail: missingKey(engine.keyVariable) };
    const unchecked =
      'Workers AI has no health endpoint, so the token and the account are checked on the first decision';
    return { ok: true, detail: `${engine.keyVariable} is set; ${unchecked}; model ${engine.settings.model}` };
  },
};

/** `: error 5006: Bad input` from the envelope's first error, made safe to show. */
function firstError(errors: unknown, key: string | undefined): string {
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  if (!isRecord(first)) return ' with no error listed';
  const code = typeof first.code === 'number' || typeof first.code === 'string' ? `error ${first.code}` : 'an error';
  const message = typeof first.message === 'string' && first.message.trim() !== '' ? `: ${first.message}` : '';
  return `: ${safeEngineText(`${code}${message}`, [key])}`;
}

@Injectable()
@System1ProviderDefinition()
export class CloudflareProviderDefinition extends SystemOneDefinition<CloudflareSettings> {
  constructor(http: EngineHttpClient) {
    super(http, CLOUDFLARE);
  }
}
