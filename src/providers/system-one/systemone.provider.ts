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
 * Any server of the System One protocol (llama-server with a decision model, engines/systemone).
 * How it maps decisions onto the engine: docs/engines.md#systemone.
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
