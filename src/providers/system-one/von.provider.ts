import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { EngineHttpClient } from '../http/engine-http.client';
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

interface VonSettings {
  endpoint: string;
  allow_remote: boolean;
  model: string;
}

/**
 * Von through `von serve`, over the System One protocol.
 * How it maps decisions onto the engine: docs/engines.md#von.
 */
@Injectable()
@System1Engine()
export class VonProviderDefinition implements ProviderDefinition {
  readonly keyVariable = 'SYSTEM1_VON_API_KEY';
  readonly name = 'von';
  readonly description = 'Von through von serve (POST /v1/systemone); one pass per batch';
  readonly settings: Record<keyof VonSettings, ProviderSettingSpec> = {
    ...httpEngineSettings('http://127.0.0.1:8777'),
    model: { type: text({ nonEmpty: true }), default: 'von-1.3', describe: 'model hint sent to Von' },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(raw: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider {
    const settings = raw as unknown as VonSettings;
    return new VonProvider(localConnection(this.http, raw, this.keyVariable, context), settings.model);
  }
}

class VonProvider extends SystemOneAdapter {
  readonly name = 'von';

  /** Von's `noul` is committed by a band rule; `noul_raw` is the calibrated P(true), the value to gate on. */
  protected override commonShape(answer: Record<string, unknown>): Record<string, unknown> {
    if (answer.type !== 'noul' || answer.noul_raw === undefined) return answer; // older servers send no noul_raw
    return { ...answer, noul: answer.noul_raw };
  }

  protected attribution(body: Record<string, unknown>, model: string | undefined): string {
    return `von ${model ?? this.model}`;
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const { body } = await this.call('GET', '/health', signal);
    const version = isRecord(body) && typeof body.version === 'string' ? ` (version ${body.version})` : '';
    return { ok: true, detail: `von serve up${version}` };
  }
}
