import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { EngineHttpClient } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import type { SystemOneDialect } from './systemone-dialect';
import { SystemOneDefinition } from './systemone.definition';

type VonSettings = { endpoint: string; allow_remote: boolean; model: string };

/**
 * Von through `von serve`, over the System One protocol.
 * How it maps decisions onto the engine: docs/engines.md#von.
 */
export const VON: SystemOneDialect<VonSettings> = {
  name: 'von',
  description: 'Von through von serve (POST /v1/systemone); one pass per batch',
  keyVariable: 'SYSTEM1_VON_API_KEY',
  settings: {
    ...httpEngineSettings('http://127.0.0.1:8777'),
    model: { type: text({ nonEmpty: true }), default: 'von-1.3', describe: 'model hint sent to Von' },
  },
  reach: 'local',
  answer: {
    /** Von's `noul` is committed by a band rule; `noul_raw` is the calibrated P(true), the value to gate on. */
    normalise: (_id, answer) => {
      if (answer.type !== 'noul' || answer.noul_raw === undefined) return answer; // older servers send no noul_raw
      return { ...answer, noul: answer.noul_raw };
    },
  },
  health: async (engine, { signal }) => {
    const { body } = await engine.get('/health', signal);
    const version = isRecord(body) && typeof body.version === 'string' ? ` (version ${body.version})` : '';
    return { ok: true, detail: `von serve up${version}` };
  },
};

@Injectable()
@System1ProviderDefinition()
export class VonProviderDefinition extends SystemOneDefinition<VonSettings> {
  constructor(http: EngineHttpClient) {
    super(http, VON);
  }
}
