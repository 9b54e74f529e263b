import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { shown } from '../../common/clip';
import { EngineStatusError } from '../../decisions/errors/decision-error';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { EngineHttpClient } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import type { SystemOneDialect } from './systemone-dialect';
import { SystemOneDefinition } from './systemone.definition';

type SystemOneServerSettings = { endpoint: string; allow_remote: boolean; model?: string };

/**
 * Any server of the System One protocol (llama-server with a decision model, engines/systemone).
 * How it maps decisions onto the engine: docs/engines.md#systemone.
 */
export const SYSTEMONE: SystemOneDialect<SystemOneServerSettings> = {
  name: 'systemone',
  description: 'any System One server: llama-server with a decision model, or engines/systemone/serve.py',
  keyVariable: 'SYSTEM1_SYSTEMONE_API_KEY',
  settings: {
    ...httpEngineSettings('http://127.0.0.1:8790'),
    model: {
      type: text({ nonEmpty: true }),
      describe: 'model to request (unset: not sent; the server answers with its own)',
    },
  },
  reach: 'local',
  statusAdvice: {
    501:
      "the server's model is not a decision model, so it cannot answer /v1/systemone: load a native decision model " +
      '(for example LiquidAI d1) instead',
  },
  health: async (engine, { signal }) => {
    try {
      const { body } = await engine.get('/health', signal);
      const status = isRecord(body) ? body.status : undefined;
      if (status !== 'ok')
        return { ok: false, detail: `the server's /health answered status ${shown(status)}, not "ok"` };
      return { ok: true, detail: 'System One server up with its model loaded' };
    } catch (error) {
      if (error instanceof EngineStatusError && error.status === 503) {
        return {
          ok: false,
          detail: `the server is still loading its model (${error.message}); try again once it has loaded`,
        };
      }
      throw error;
    }
  },
};

@Injectable()
@System1ProviderDefinition()
export class SystemOneProviderDefinition extends SystemOneDefinition<SystemOneServerSettings> {
  constructor(http: EngineHttpClient) {
    super(http, SYSTEMONE);
  }
}
