import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { text } from '../../config/setting-types';
import { shown } from '../../common/clip';
import { MalformedResponseError } from '../../decisions/errors/decision-error';
import { isProbability } from '../../decisions/pipeline/distribution';
import { System1ProviderDefinition } from '../../decisions/registry/providers.token';
import { EngineHttpClient } from '../http/engine-http.client';
import { httpEngineSettings } from '../http/http-settings';
import {
  checkCheckpointName,
  checkpointOf,
  declineNonLatin,
  layaAnsweredBy,
  pinnedCheckpoint,
} from './laya-checkpoint';
import type { SystemOneDialect } from './systemone-dialect';
import { SystemOneDefinition } from './systemone.definition';

/** More options than this exhaust Laya's decision head (model card). */
export const LAYA_MAX_OPTIONS = 20;

type LayaSettings = { endpoint: string; allow_remote: boolean; model: string };

/**
 * Laya through laya-serve, over the System One protocol: a pinned checkpoint, held to the one that answered.
 * How it maps decisions onto the engine: docs/engines.md#laya.
 */
export const LAYA: SystemOneDialect<LayaSettings> = {
  name: 'laya',
  description: 'Laya through laya-serve (POST /v1/systemone); at most 20 options; one pass per batch',
  keyVariable: 'SYSTEM1_LAYA_API_KEY',
  settings: {
    ...httpEngineSettings('http://127.0.0.1:8765'),
    model: {
      type: text(),
      default: 'typed-decisions',
      describe: 'checkpoint to pin: english, multilingual, typed-decisions (or its HF id); "" lets Laya route',
    },
  },
  reach: 'local',
  check: ({ model }) => checkCheckpointName(model),
  question: {
    /** Laya's `noul` follows its labels rather than the input, so yes/no goes as a two-candidate choice. */
    noulAsChoice: true,
    /** laya-serve takes a choice's candidates as a list of labels, and keys its probabilities by them. */
    bareCandidates: 'labels',
  },
  decline: (request, { model }) => declineNonLatin(request, pinnedCheckpoint(model)),
  answer: {
    /** `answer_confidence` is the probability of the answer given (absent under LAYA_JEV_STRICT). */
    normalise: (id, answer) => {
      const stated = answer.answer_confidence;
      if (stated !== undefined && !isProbability(stated)) {
        const problem = `answer_confidence is ${shown(stated)}, not a number in [0, 1]`;
        throw new MalformedResponseError(`laya answer to question ${shown(id)}: ${problem}`);
      }
      return answer;
    },
    answeredBy: (body, model, settings) => layaAnsweredBy(body, model, pinnedCheckpoint(settings.model)),
  },
  /** laya-serve's limits (413 above them), with the 20-candidate limit of its decision head. */
  limits: () => ({
    types: ['choice', 'noul', 'score'],
    max_questions: 64,
    max_options: LAYA_MAX_OPTIONS,
    max_total_options: 512,
    max_levels: 32,
  }),
  facts: { max_options: LAYA_MAX_OPTIONS },
  health: async (engine, { signal }) => {
    const { body } = await engine.get('/health', signal);
    if (!isRecord(body) || body.status !== 'ok') {
      return {
        ok: false,
        detail: `laya-serve /health answered status ${shown(isRecord(body) ? body.status : body)}, not "ok"`,
      };
    }
    const loaded = body.loaded;
    if (!Array.isArray(loaded)) {
      // laya-serve shows only {"status":"ok"} to a caller without its LAYA_API_KEY; decisions would get 401.
      const withheld = 'laya-serve is up but withheld its checkpoint list, which it does for a caller without its key';
      return { ok: false, detail: `${withheld}: ${engine.keyAdvice()}` };
    }
    const names = loaded.filter((name): name is string => typeof name === 'string');
    const device = typeof body.device === 'string' ? ` on ${body.device}` : '';
    const detail = `laya-serve up${device}; loaded: ${names.join(', ') || 'none yet'}`;
    const checkpoint = pinnedCheckpoint(engine.settings.model);
    if (checkpoint !== null && !names.some((name) => checkpointOf(name) === checkpoint)) {
      const slow = `${checkpoint} is not preloaded, so the first decision will be slow (add it to LAYA_MODELS)`;
      return { ok: true, detail: `${detail}; warning: ${slow}` };
    }
    return { ok: true, detail };
  },
};

@Injectable()
@System1ProviderDefinition()
export class LayaProviderDefinition extends SystemOneDefinition<LayaSettings> {
  constructor(http: EngineHttpClient) {
    super(http, LAYA);
  }
}
