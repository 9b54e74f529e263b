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
 * Von through `von serve` (verified against von-sdk 1.3.1): the System One protocol,
 * `POST {endpoint}/v1/systemone`, health `GET {endpoint}/health` (wire-contracts §1.4 C).
 *
 * Settings: `endpoint` (`http://127.0.0.1:8777`; von serve's own default port is 8000), `model`
 * (`von-1.3`, always sent; Von treats it as a hint and stamps the reply with the version it served),
 * `allow_remote` (false). Key: `SYSTEM1_VON_API_KEY` (von serve's `VON_API_KEY`), sent as
 * `Authorization: Bearer` when set.
 *
 * Mapping: every question of the batch in one request; options -> a `choice` question whose `criteria` is
 * the map `{option: option}` (Von's choice criteria are a key -> description map). A yes/no question goes
 * the same way, as the choice between "yes" and "no": the gateway answers yes/no as a decision between
 * those two options with the probability of the chosen one, and Von's `noul` would give a band-committed
 * value (`noul`) next to the probability (`noul_raw`, missing on older servers) instead. `confidence` is
 * `probabilities[choice]`: Von's own `confidence` is the margin P1 - P2. Von reads an 8,192-token window.
 *
 * Health: Von documents no health route; a 200 JSON reply from `GET /health` counts as up.
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

  protected attribution(body: Record<string, unknown>, model: string | undefined): string {
    return `von ${model ?? this.model}`;
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const { body } = await this.call('GET', '/health', signal);
    const version = isRecord(body) && typeof body.version === 'string' ? ` (version ${body.version})` : '';
    return { ok: true, detail: `von serve up${version}` };
  }
}
