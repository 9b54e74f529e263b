import type { DecisionModelSettings } from '../config/config-keys';
import type { CallerModels } from '../decisions/callers/caller-models.service';
import { type DecisionError, DecisionErrorCode } from '../decisions/errors/decision-error';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { ModelRef } from '../decisions/questions/question.types';
import { placeholderProblem } from '../decisions/registry/placeholder';
import { decideServed, type ServedOutcome } from './served-decide';
import { ModelCatalog, type ModelChoice, modelName } from './model-catalog';
import { openAiAnswer, openAiUsage } from './openai-answers';
import { readDecisionsRequest } from './openai-request';
import { upstreamIsThisRouter } from './own-address';
import { MIN_CONFIDENCE_HEADER, requestedMinConfidence, servedHeaders, withheld } from './served-headers';
import type { ServedRequest } from './served-request';
import { readSystemOneRequest, systemOneAnswer } from './systemone-wire';
import { type DecisionWire, WireInputError, type WireReply, wireError } from './wire-reply';

/** What the served wires need: the pipeline, the caller's models, the operator's aliases, where engines are. */
export interface DecisionsApiDeps {
  decisions: Pick<DecisionService, 'decide' | 'chainFor' | 'resolvePool'>;
  callerModels: Pick<CallerModels, 'problem'>;
  aliases: Readonly<Record<string, DecisionModelSettings>>;
  /** The URLs a provider's engines are at, so that this server never asks itself. */
  engineUrls: (provider: string) => readonly string[];
  /** The providers among these that are the installer's stand-in, which never answers for a model here. */
  placeholders: (providers: readonly string[]) => string[];
  log: (line: string) => void;
}

/** One request as its transport hands it over: its id, its headers, and where this server listens. */
export interface WireCall {
  requestId: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The address this server is bound to; an engine there would be this server itself. */
  listening?: { host: string; port: number };
}

/** The errors a request's own content causes (what it asks no engine takes); the others are the engines'. */
const REQUEST_SIDE: ReadonlySet<string> = new Set([
  DecisionErrorCode.InvalidRequest,
  DecisionErrorCode.Unsupported,
  DecisionErrorCode.LimitExceeded,
]);

/**
 * The served Decisions API: OpenAI's `/v1/decisions` and System One's `/v1/systemone`, transport-free. Given a
 * parsed JSON body, the request id and the caller's scope (set by the transport through `callerScope`), it
 * produces the status, headers and body. serve-http mounts it; serve-openai can mount the same object.
 */
export class DecisionsApi {
  readonly models: ModelCatalog;

  constructor(private readonly deps: DecisionsApiDeps) {
    this.models = new ModelCatalog(deps.aliases, deps.decisions, deps.callerModels);
  }

  async answer(wire: DecisionWire, body: unknown, call: WireCall): Promise<WireReply> {
    let request: ServedRequest;
    let minConfidence: number | undefined;
    try {
      request = wire === 'openai' ? readDecisionsRequest(body) : readSystemOneRequest(body);
      minConfidence = requestedMinConfidence(call.headers[MIN_CONFIDENCE_HEADER]);
    } catch (error) {
      if (!(error instanceof WireInputError)) throw error;
      return wireError(wire, 400, `${error.param} ${error.problem}`, { param: error.param });
    }
    const lookup = this.models.lookup(request.model);
    if ('notFound' in lookup) return wireError(wire, 404, lookup.notFound, { param: 'model', code: 'model_not_found' });
    const choice = lookup.choice;
    const loop = this.selfEngine(choice.engines, call.listening);
    if (loop)
      return wireError(
        wire,
        508,
        `the model ${JSON.stringify(choice.name)} names ${loop}, whose endpoint is this server: ` +
          'it would ask itself without end; the operator points that engine elsewhere',
      );
    const standIns = this.deps.placeholders(choice.engines.map((ref) => ref.provider));
    if (standIns.length > 0) {
      this.deps.log(`[${call.requestId}] refused: ${standIns.join(', ')} is the installer's stand-in mock`);
      return wireError(wire, 503, placeholderProblem(standIns), { code: 'engine_unavailable' });
    }
    const outcome = await decideServed(this.deps.decisions, request, choice, {
      requestId: call.requestId,
      surface: wire === 'openai' ? 'decisions_api' : 'systemone_api',
      minConfidence: minConfidence ?? choice.minConfidence,
    });
    if (outcome.unanswered) return this.unanswered(wire, call.requestId, outcome.unanswered);
    return this.reply(wire, request, outcome, { call, choice });
  }

  private reply(
    wire: DecisionWire,
    request: ServedRequest,
    outcome: ServedOutcome,
    { call, choice }: { call: WireCall; choice: ModelChoice },
  ): WireReply {
    const abstained: string[] = [];
    const refused: string[] = [];
    const answers = request.questions.map((asked, index) => {
      const result = outcome.outcomes.get(asked.id)!;
      if (withheld(result)) abstained.push(asked.name ?? `#${index}`);
      else if (result.status === 'error') refused.push(asked.name ?? `#${index}`);
      return wire === 'openai'
        ? openAiAnswer(asked, result, withheld(result))
        : systemOneAnswer(asked, result, withheld(result));
    });
    const model = outcome.engines.length > 0 ? modelName(outcome.engines[0]) : choice.name;
    const headers = servedHeaders(call.requestId, outcome.engines, outcome.outcomes.values(), abstained);
    this.deps.log(
      `[${call.requestId}] ${wire === 'openai' ? '/v1/decisions' : '/v1/systemone'}: ${request.questions.length} ` +
        `question(s) for ${JSON.stringify(choice.name.slice(0, 80))}, answered by ${headers['x-system1-engine']}` +
        `${abstained.length > 0 ? `, ${abstained.length} withheld` : ''}` +
        `${refused.length > 0 ? `, ${refused.length} unanswered` : ''}`,
    );
    if (wire === 'openai') return { status: 200, headers, body: { answers, model, usage: openAiUsage(outcome.usage) } };
    const errors: [string, { code: string; message: string }][] = request.questions.flatMap(({ id }) => {
      const result = outcome.outcomes.get(id)!;
      return result.status === 'error' ? [[id, { code: result.error.code, message: result.error.message }]] : [];
    });
    return {
      status: 200,
      headers,
      body: {
        model,
        answers: Object.fromEntries(
          request.questions.flatMap(({ id }, index) => (answers[index] === undefined ? [] : [[id, answers[index]]])),
        ),
        usage: { input_tokens: outcome.usage.inputTokens, output_tokens: outcome.usage.outputTokens },
        // An extra key, which System One clients pass through: why a question has no answer.
        ...(errors.length > 0 && { errors: Object.fromEntries(errors) }),
      },
    };
  }

  /** No engine answered: the request's own fault (400) when it asked what none takes, else 503. */
  private unanswered(wire: DecisionWire, requestId: string, error: DecisionError): WireReply {
    this.deps.log(`[${requestId}] no engine answered: ${error.code}`);
    if (REQUEST_SIDE.has(error.code))
      return wireError(wire, 400, `no engine of this model takes the request: ${error.message}`);
    return wireError(wire, 503, `no engine could answer (${error.code}): ${error.message}; retry shortly`, {
      code: 'engine_unavailable',
      headers: { 'retry-after': '1' },
    });
  }

  /** The first engine of `engines` whose endpoint is this server's own address, named; undefined when none is. */
  private selfEngine(engines: readonly ModelRef[], listening: WireCall['listening']): string | undefined {
    if (!listening) return undefined;
    for (const ref of engines) {
      for (const url of this.deps.engineUrls(ref.provider)) {
        let parsed: URL;
        try {
          parsed = new URL(url);
        } catch {
          continue;
        }
        if (upstreamIsThisRouter(parsed, listening.host, listening.port)) return modelName(ref);
      }
    }
    return undefined;
  }
}
