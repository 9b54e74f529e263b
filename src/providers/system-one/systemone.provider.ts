import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { shown, text } from '../../config/setting-types';
import { EngineHttpClient } from '../http/engine-http.client';
import { EngineStatusError } from '../../decisions/decision-error';
import { httpEngineSettings } from '../http/http-settings';
import {
  AttemptContext,
  HealthProbeResult,
  ProviderCreateContext,
  ProviderDefinition,
  ProviderSettingSpec,
  System1Provider,
} from '../../decisions/provider.interface';
import { System1Engine } from '../../decisions/providers.token';
import { localConnection, SystemOneAdapter } from './systemone.adapter';

interface SystemOneSettings {
  endpoint: string;
  allow_remote: boolean;
  model?: string;
}

/**
 * Any other server that speaks the System One protocol: llama.cpp's `llama-server` with a native decision
 * model (Liquid AI d1; verified against build b11757) or engines/systemone/serve.py for the Hugging
 * Face-only engines (gte reranker, Qwen3-Reranker, AnyJev, OpenThai-SystemOne). `POST {endpoint}/v1/systemone`,
 * health `GET {endpoint}/health` (wire-contracts §1.4 D).
 *
 * Settings: `endpoint` (`http://127.0.0.1:8790`), `model` (unset: not sent, since a direct llama-server
 * ignores it and answers with the model it loaded; set it for a llama-server in router mode, which
 * proxies to the child it names), `allow_remote` (false). Key: `SYSTEM1_SYSTEMONE_API_KEY` (llama-server's
 * `--api-key`, serve.py's same variable), sent as `Authorization: Bearer` when set.
 *
 * Mapping: as for `von`: every question of the batch in one request, options as a `{option: option}`
 * criteria map (so a reranker scores the option text itself), yes/no as the choice between "yes" and "no",
 * `confidence` = `probabilities[choice]` (llama-server's `confidence` is Jev's rescaled margin).
 * The rationale names the model the server says it loaded.
 *
 * Limits: no `max_options` of its own; the server's applies (llama-server: 52 or 255 by model type,
 * serve.py: 256), and a refusal comes back as the server's 422/400 with its message. A server whose
 * model is not a decision model answers 501 `not_supported_error`, reported as such. Health: 200
 * `{"status":"ok"}` is up; 503 `Loading model` is not up yet.
 */
@Injectable()
@System1Engine()
export class SystemOneProviderDefinition implements ProviderDefinition {
  readonly keyVariable = 'SYSTEM1_SYSTEMONE_API_KEY';
  readonly name = 'systemone';
  readonly description = 'any System One server: llama-server with a decision model, or engines/systemone/serve.py';
  readonly settings: Record<keyof SystemOneSettings, ProviderSettingSpec> = {
    ...httpEngineSettings('http://127.0.0.1:8790'),
    model: { type: text({ nonEmpty: true }), describe: 'model to request (unset: not sent; the server answers with its own)' },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(raw: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider {
    const settings = raw as unknown as SystemOneSettings;
    return new SystemOneProvider(localConnection(this.http, raw, this.keyVariable, context), settings.model);
  }
}

class SystemOneProvider extends SystemOneAdapter {
  readonly name = 'systemone';

  protected override explainFailure(error: unknown): unknown {
    if (error instanceof EngineStatusError && error.status === 501) {
      return new EngineStatusError(
        501,
        `${error.message}; the server's model is not a decision model, so it cannot answer /v1/systemone: load a native decision model (for example LiquidAI d1) instead`,
      );
    }
    return super.explainFailure(error);
  }

  protected attribution(body: Record<string, unknown>, model: string | undefined): string {
    return `systemone ${model ?? this.model ?? 'server model'}`;
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    try {
      const { body } = await this.call('GET', '/health', signal);
      const status = isRecord(body) ? body.status : undefined;
      if (status !== 'ok') return { ok: false, detail: `the server's /health answered status ${shown(status)}, not "ok"` };
      return { ok: true, detail: 'System One server up with its model loaded' };
    } catch (error) {
      if (error instanceof EngineStatusError && error.status === 503) {
        return { ok: false, detail: `the server is still loading its model (${error.message}); try again once it has loaded` };
      }
      throw error;
    }
  }
}
