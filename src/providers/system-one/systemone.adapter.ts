import { configuredEndpoint } from '../http/http-settings';
import { EngineHttpClient } from '../http/engine-http.client';
import { endpointUrl } from '../http/endpoint';
import { DecisionError, EngineStatusError } from '../../decisions/decision-error';
import { secretFromEnv } from '../http/http-settings';
import { AttemptContext, EvaluateReply, EvaluateRequest, HealthProbeResult, ProviderCapabilities, ProviderCreateContext, System1Provider } from '../../decisions/provider.interface';
import { BareCandidates, noulFromChoice, probabilitiesBestFirst, readSystemOneEnvelope, SYSTEMONE_PATH, typedSystemOneRequest } from './systemone-protocol';
import { isRecord } from '../../common/is-record';
import { QuestionCapabilities } from '../../decisions/question-capabilities';

/** Where an engine listens and how to reach it. */
export interface SystemOneConnection {
  http: EngineHttpClient;
  /** The checked endpoint (see `configuredEndpoint`). */
  base: URL;
  allowRemote: boolean;
  /** The environment variable holding the bearer token, read at call time. */
  keyVariable: string;
  context: ProviderCreateContext;
}

/** The connection to a System One engine on this machine (or elsewhere with `allow_remote`), from its settings. */
export function localConnection(
  http: EngineHttpClient,
  settings: Readonly<Record<string, unknown>>,
  keyVariable: string,
  context: ProviderCreateContext,
): SystemOneConnection {
  return { http, base: configuredEndpoint(settings), allowRemote: settings.allow_remote === true, keyVariable, context };
}

/**
 * The connection to a hosted API, remote by nature: no `allow_remote` to set, but https unless the
 * endpoint is this machine, since every request carries the key.
 */
export function hostedConnection(
  http: EngineHttpClient,
  settings: Readonly<Record<string, unknown>>,
  keyVariable: string,
  context: ProviderCreateContext,
): SystemOneConnection {
  const base = configuredEndpoint(settings, { allowRemote: true, httpsUnlessLoopback: true });
  return { http, base, allowRemote: true, keyVariable, context };
}

/**
 * The shared shape of a System One adapter: every question of a request goes in ONE `POST /v1/systemone`
 * (or the engine's own {@link decisionPath}) and each answer comes back with a rationale naming who
 * answered and listing the probabilities best first. Engines differ only in the hooks below and in their
 * health check.
 */
export abstract class SystemOneAdapter implements System1Provider {
  abstract readonly name: string;

  /** `model` is sent with every request unless it is empty or unset. */
  constructor(
    protected readonly connection: SystemOneConnection,
    protected readonly model: string | undefined,
  ) {}

  /** Every System One engine answers a batch in one pass with per-option probabilities. */
  capabilities(): ProviderCapabilities {
    return { batch: true, probabilities: true, model: this.model || null, questions: this.questionCapabilities() };
  }

  /**
   * The typed questions the engine takes and its published limits (wire-contracts §1.1): choice, yes/no and
   * score, 2 to 10 levels, unless an engine says otherwise.
   */
  protected questionCapabilities(): QuestionCapabilities {
    return { types: ['choice', 'noul', 'score'], max_levels: 10 };
  }

  /** Engines whose `noul` does not follow the input get yes/no questions as a choice between yes and no. */
  protected readonly noulAsChoice: boolean = false;

  /** How candidates without descriptions are sent (see {@link BareCandidates}). */
  protected readonly bareCandidates: BareCandidates = 'self-described';

  /** Extra request headers for a typed request (an experimental feature's opt-in header). */
  protected typedHeaders(_request: EvaluateRequest): Record<string, string> {
    return {};
  }

  abstract health(context: AttemptContext): Promise<HealthProbeResult>;

  /** Where decisions are posted, relative to the endpoint. */
  protected decisionPath(): string {
    return SYSTEMONE_PATH;
  }

  /** The System One reply inside the engine's response body (an engine may wrap it in an envelope). */
  protected unwrapReply(body: unknown): unknown {
    return body;
  }

  /** The `model` to send; undefined = none. */
  protected requestModel(): string | undefined {
    return this.model || undefined;
  }

  /**
   * Questions declined without asking the engine (an abstention it is known to get wrong), keyed by id;
   * the others are sent.
   */
  protected declineWithoutAsking(_request: EvaluateRequest): Record<string, DecisionError> {
    return {};
  }

  /**
   * Turns an engine failure into the error a user can act on. By default a 401 or 403 says which variable
   * holds the key (never the key); anything else goes through unchanged.
   */
  protected explainFailure(error: unknown): unknown {
    if (error instanceof EngineStatusError && (error.status === 401 || error.status === 403)) {
      return new EngineStatusError(error.status, `${error.message}; ${this.keyAdvice()}`, error.retryAfterS);
    }
    return error;
  }

  /** What to do about a refused key, naming the variable only. */
  protected keyAdvice(): string {
    const variable = this.connection.keyVariable;
    return this.apiKey()
      ? `${this.name} refused the key in ${variable}: check that it matches the engine's key`
      : `${this.name} wants a key: set ${variable} to the key the engine was started with`;
  }

  /** Throws `MalformedResponseError` for an engine-specific field of an answer that is wrong. */
  protected checkAnswerFields(_id: string, _answer: Record<string, unknown>): void {}

  /** An answer in the protocol's common shape, from an engine's own variant of it (Von's `noul_raw`). */
  protected commonShape(answer: Record<string, unknown>): Record<string, unknown> {
    return answer;
  }

  /** The model that answered, as the reply names it. */
  protected answeringModel(_body: Record<string, unknown>, model: string | undefined): string | undefined {
    return model;
  }

  /**
   * Who answered, for the rationale (`laya typed-decisions`), from the reply body and its `model`. May
   * throw `MalformedResponseError` for a reply from the wrong model.
   */
  protected abstract attribution(body: Record<string, unknown>, model: string | undefined): string;

  /** The key, when its variable is set: read per call so a rotated key needs no restart. */
  protected apiKey(): string | undefined {
    return secretFromEnv(this.connection.context.env, this.connection.keyVariable);
  }

  /** Throws a `ProviderError` when the engine cannot be asked at all (a hosted API without its key). */
  protected checkReady(): void {}

  /**
   * Typed questions in one request, sent as written (see {@link typedSystemOneRequest}); each answer is
   * read by the pipeline against its question, with a rationale added here.
   */
  async evaluate(request: EvaluateRequest, { signal }: AttemptContext): Promise<EvaluateReply> {
    this.checkReady();
    const declined = this.declineWithoutAsking(request);
    const questions = Object.fromEntries(Object.entries(request.questions).filter(([id]) => !Object.hasOwn(declined, id)));
    const withErrors = (reply: EvaluateReply): EvaluateReply => (Object.keys(declined).length > 0 ? { ...reply, errors: declined } : reply);
    if (Object.keys(questions).length === 0) return withErrors({ answers: {} });

    const asked = { ...request, questions };
    const body = typedSystemOneRequest(asked, { model: this.requestModel(), noulAsChoice: this.noulAsChoice, bareCandidates: this.bareCandidates });
    let reply: unknown;
    try {
      reply = this.unwrapReply((await this.call('POST', this.decisionPath(), signal, body, this.apiKey(), this.typedHeaders(asked))).body);
    } catch (error) {
      throw this.explainFailure(error);
    }
    const read = readSystemOneEnvelope(reply, this.name);
    const source = this.attribution(reply as Record<string, unknown>, read.model);
    const answers: Record<string, unknown> = {};
    // Answers to questions nobody asked are passed on too: the pipeline warns about them.
    for (const [id, raw] of Object.entries(read.answers)) {
      let answer = raw;
      const question = Object.hasOwn(questions, id) ? questions[id] : undefined;
      if (question && isRecord(answer)) {
        this.checkAnswerFields(id, answer);
        answer = this.commonShape(answer);
        if (question.type === 'noul' && this.noulAsChoice) answer = noulFromChoice(answer);
        if (isRecord(answer)) answer = { ...answer, rationale: rationaleOf(source, answer) };
      }
      answers[id] = answer;
    }
    const model = this.answeringModel(reply as Record<string, unknown>, read.model);
    return withErrors({ ...read, answers, ...(model !== undefined && { model }) });
  }

  /** One request to the engine with the bearer (when a key is set) and the attempt's signal. */
  protected call(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown, key = this.apiKey(), headers: Record<string, string> = {}) {
    const { http, base, allowRemote } = this.connection;
    return http.request({
      method,
      url: endpointUrl(base, path),
      body,
      headers: key ? { ...headers, authorization: `Bearer ${key}` } : headers,
      signal,
      allowRemote,
      secrets: key ? [key] : [],
    });
  }
}

/** `laya typed-decisions: block the merge=0.52, rerun the pipeline=0.48`, or who answered alone. */
function rationaleOf(source: string, answer: Record<string, unknown>): string {
  const { probabilities } = answer;
  const numbers = isRecord(probabilities) && Object.values(probabilities).every((p) => typeof p === 'number');
  return numbers ? `${source}: ${probabilitiesBestFirst(probabilities as Record<string, number>)}` : source;
}
