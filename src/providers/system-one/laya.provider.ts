import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common/is-record';
import { shown, text } from '../../config/setting-types';
import { EngineHttpClient } from '../http/engine-http.client';
import { configuredEndpoint, httpEngineSettings } from '../http/http-settings';
import { AttemptContext, EvaluateRequest, HealthProbeResult, ProviderCapabilities, ProviderCreateContext, ProviderDefinition, ProviderSettingError, ProviderSettingSpec, System1Provider } from '../../decisions/provider.interface';
import { DecisionError, DecisionErrorCode, MalformedResponseError } from '../../decisions/decision-error';
import { System1Engine } from '../../decisions/providers.token';
import { NON_LATIN_LIMIT, nonLatinShare, textsOfQuestion } from './laya-script';
import { SystemOneAdapter, SystemOneConnection } from './systemone.adapter';
import { isProbability } from '../../decisions/distribution';
import { QuestionCapabilities } from '../../decisions/question-capabilities';

/** The names that pin a Laya checkpoint, and the checkpoint each one means. Any other name auto-routes. */
const CHECKPOINTS: Readonly<Record<string, string>> = {
  english: 'english',
  multilingual: 'multilingual',
  'typed-decisions': 'typed-decisions',
  'convaiinnovations/laya-multilingual': 'multilingual',
  'convaiinnovations/laya-typed-decisions': 'typed-decisions',
};

/** The checkpoint a name means (a name Laya would auto-route is returned as it is). */
function checkpointOf(name: string): string {
  return Object.hasOwn(CHECKPOINTS, name) ? CHECKPOINTS[name] : name;
}

/** More options than this exhaust Laya's decision head (model card). */
export const LAYA_MAX_OPTIONS = 20;

interface LayaSettings {
  endpoint: string;
  allow_remote: boolean;
  model: string;
}

/**
 * Laya through laya-serve, over the System One protocol.
 * How it maps decisions onto the engine: docs/engines.md#laya.
 */
@Injectable()
@System1Engine()
export class LayaProviderDefinition implements ProviderDefinition {
  readonly keyVariable = 'SYSTEM1_LAYA_API_KEY';
  readonly name = 'laya';
  readonly description = 'Laya through laya-serve (POST /v1/systemone); at most 20 options; one pass per batch';
  readonly settings: Record<keyof LayaSettings, ProviderSettingSpec> = {
    ...httpEngineSettings('http://127.0.0.1:8765'),
    model: {
      type: text(),
      default: 'typed-decisions',
      describe: 'checkpoint to pin: english, multilingual, typed-decisions (or its HF id); "" lets Laya route',
    },
  };

  constructor(private readonly http: EngineHttpClient) {}

  create(raw: Readonly<Record<string, unknown>>, context: ProviderCreateContext): System1Provider {
    const settings = raw as unknown as LayaSettings;
    const base = configuredEndpoint(raw);
    if (settings.model !== '' && !Object.hasOwn(CHECKPOINTS, settings.model)) {
      const known = Object.keys(CHECKPOINTS).map((name) => JSON.stringify(name)).join(', ');
      throw new ProviderSettingError(
        'model',
        `names no Laya checkpoint (got ${shown(settings.model)}); laya-serve would silently auto-route it to another checkpoint. Use one of ${known}, or "" to let Laya route on purpose`,
      );
    }
    return new LayaProvider(
      {
      http: this.http,
      base,
      allowRemote: settings.allow_remote,
      keyVariable: this.keyVariable,
      context,
      },
      settings.model,
    );
  }
}

class LayaProvider extends SystemOneAdapter {
  readonly name = 'laya';
  /** The pinned checkpoint's short name; null when Laya routes. */
  private readonly checkpoint: string | null;

  constructor(connection: SystemOneConnection, model: string) {
    super(connection, model);
    this.checkpoint = model === '' ? null : checkpointOf(model);
  }

  override capabilities(): ProviderCapabilities {
    return { ...super.capabilities(), max_options: LAYA_MAX_OPTIONS };
  }

  /** Laya's `noul` follows its labels rather than the input, so yes/no goes as a two-candidate choice. */
  protected override readonly noulAsChoice = true;

  /** laya-serve takes a choice's candidates as a list of labels, and keys its probabilities by them. */
  protected override readonly bareCandidates = 'labels';

  /** laya-serve's limits (413 above them), with the 20-candidate limit of its decision head. */
  protected override questionCapabilities(): QuestionCapabilities {
    return { types: ['choice', 'noul', 'score'], max_questions: 64, max_options: LAYA_MAX_OPTIONS, max_total_options: 512, max_levels: 32 };
  }

  /** English-only checkpoints are confidently wrong on mostly non-Latin text: such questions are declined. */
  protected override declineWithoutAsking(request: EvaluateRequest): Record<string, DecisionError> {
    const declined: Record<string, DecisionError> = {};
    if (this.checkpoint === null || this.checkpoint === 'multilingual') return declined;
    for (const [id, question] of Object.entries(request.questions)) {
      const share = nonLatinShare(textsOfQuestion(id, question, request.state));
      if (share > NON_LATIN_LIMIT) {
        declined[id] = {
          code: DecisionErrorCode.Abstained,
          message: `laya ${this.checkpoint}: ${Math.round(share * 100)}% of the letters in the question, options and context are not Latin, and this checkpoint is English-only (confidently wrong on such text); set model = "multilingual" in [providers.laya] for it`,
        };
      }
    }
    return declined;
  }

  /** `answer_confidence` is the probability of the answer given (absent under LAYA_JEV_STRICT). */
  protected override checkAnswerFields(id: string, answer: Record<string, unknown>): void {
    const stated = answer.answer_confidence;
    if (stated !== undefined && !isProbability(stated)) {
      throw new MalformedResponseError(`laya answer to question ${shown(id)}: answer_confidence is ${shown(stated)}, not a number in [0, 1]`);
    }
  }

  /** The checkpoint that answered (`routing.model`), not the server's name for itself (`laya-rl-agent`). */
  protected override answeringModel(body: Record<string, unknown>, model: string | undefined): string | undefined {
    const routing = body.routing;
    return isRecord(routing) && typeof routing.model === 'string' && routing.model !== '' ? routing.model : (this.checkpoint ?? model);
  }

  protected attribution(body: Record<string, unknown>): string {
    const routing = body.routing;
    if (routing === undefined) {
      return `laya ${this.checkpoint ?? 'auto-routed'} (checkpoint not verified: the reply has no routing block, as under LAYA_JEV_STRICT)`;
    }
    const answered = isRecord(routing) ? routing.model : undefined;
    if (typeof answered !== 'string' || answered === '') {
      throw new MalformedResponseError(`laya reply has a routing block without the checkpoint that answered (routing.model is ${shown(answered)})`);
    }
    if (this.checkpoint === null) return `laya ${answered} (auto-routed)`;
    if (checkpointOf(answered) !== this.checkpoint) {
      throw new MalformedResponseError(
        `Laya answered with checkpoint ${shown(answered)} instead of ${shown(this.checkpoint)}: laya-serve auto-routes a model it does not serve, so this laya-serve lacks ${shown(this.checkpoint)} (upgrade it, or set model = "" to accept its routing)`,
      );
    }
    return `laya ${this.checkpoint}`;
  }

  async health({ signal }: AttemptContext): Promise<HealthProbeResult> {
    const { body } = await this.call('GET', '/health', signal);
    if (!isRecord(body) || body.status !== 'ok') {
      return { ok: false, detail: `laya-serve /health answered status ${shown(isRecord(body) ? body.status : body)}, not "ok"` };
    }
    const loaded = body.loaded;
    if (!Array.isArray(loaded)) {
      // laya-serve shows only {"status":"ok"} to a caller without its LAYA_API_KEY; decisions would get 401.
      return { ok: false, detail: `laya-serve is up but withheld its checkpoint list, which it does for a caller without its key: ${this.keyAdvice()}` };
    }
    const names = loaded.filter((name): name is string => typeof name === 'string');
    const device = typeof body.device === 'string' ? ` on ${body.device}` : '';
    const detail = `laya-serve up${device}; loaded: ${names.join(', ') || 'none yet'}`;
    if (this.checkpoint !== null && !names.some((name) => checkpointOf(name) === this.checkpoint)) {
      return {
        ok: true,
        detail: `${detail}; warning: ${this.checkpoint} is not preloaded, so the first decision will be slow (add it to LAYA_MODELS)`,
      };
    }
    return { ok: true, detail };
  }
}
