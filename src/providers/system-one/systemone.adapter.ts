import { configuredEndpoint } from '../http/http-settings';
import { EngineHttpClient } from '../http/engine-http.client';
import { endpointUrl } from '../http/endpoint';
import { EngineStatusError } from '../http/engine-http.errors';
import { secretFromEnv } from '../http/http-settings';
import {
  AttemptContext,
  DecisionBatch,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderAnswer,
  ProviderCapabilities,
  ProviderCreateContext,
  System1Provider,
} from '../../decisions/provider.interface';
import {
  CriteriaStyle,
  noulFromChoice,
  probabilitiesBestFirst,
  readSystemOneEnvelope,
  readSystemOneReply,
  SystemOneChoice,
  SystemOneReply,
  systemOneRequest,
  SYSTEMONE_PATH,
  typedSystemOneRequest,
} from './systemone-protocol';
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
 * The shared shape of a System One adapter: every question of a batch goes in ONE `POST /v1/systemone`
 * (or the engine's own {@link decisionPath}), the reply is strictly checked ({@link readSystemOneReply}),
 * and each answer becomes a decision with the engine's per-option probabilities and a rationale listing
 * them best first. Engines differ only in the hooks below (where they take decisions, what envelope they
 * wrap the reply in, which options they refuse up front, how they fail, which field is the answer's
 * probability, who they say answered) and in their health check.
 */
export abstract class SystemOneAdapter implements System1Provider {
  abstract readonly name: string;
  protected abstract readonly criteria: CriteriaStyle;

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
   * Answers some questions without asking the engine (an abstention it is known to get wrong), or throws
   * for a batch it cannot take. The questions not answered here are sent.
   */
  protected answerWithoutAsking(_batch: DecisionBatch): Map<string, ProviderAnswer> {
    return new Map();
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

  /** The probability of the returned answer. */
  protected confidenceOf(answer: SystemOneChoice): number {
    return answer.probabilities[answer.choice];
  }

  /**
   * Who answered, for the rationale (`laya typed-decisions`). May throw `MalformedResponseError` for a
   * reply from the wrong model.
   */
  protected abstract attribution(reply: SystemOneReply): string;

  /** The key, when its variable is set: read per call so a rotated key needs no restart. */
  protected apiKey(): string | undefined {
    return secretFromEnv(this.connection.context.env, this.connection.keyVariable);
  }

  /** Throws a `ProviderError` when the engine cannot be asked at all (a hosted API without its key). */
  protected checkReady(): void {}

  async decide(batch: DecisionBatch, { signal }: AttemptContext): Promise<Record<string, unknown>> {
    this.checkReady();
    const answers: Record<string, ProviderAnswer> = Object.fromEntries(this.answerWithoutAsking(batch));
    const asked = batch.questions.filter((question) => !Object.hasOwn(answers, question.id));
    if (asked.length === 0) return answers;

    const body = systemOneRequest(batch.state, asked, { model: this.requestModel(), criteria: this.criteria });
    let reply: unknown;
    try {
      reply = this.unwrapReply((await this.call('POST', this.decisionPath(), signal, body)).body);
    } catch (error) {
      throw this.explainFailure(error);
    }
    const read = readSystemOneReply(reply, asked, this.name);
    const source = this.attribution(read);
    for (const question of asked) answers[question.id] = this.decision(read.answers.get(question.id)!, source);
    return answers;
  }

  /**
   * Typed questions in one request, sent as written (see {@link typedSystemOneRequest}); the reply's
   * envelope is read here and each answer is checked by the gateway against its question.
   */
  async evaluate(request: EvaluateRequest, { signal }: AttemptContext): Promise<EvaluateReply> {
    this.checkReady();
    const body = typedSystemOneRequest(request, { model: this.requestModel(), noulAsChoice: this.noulAsChoice });
    let reply: unknown;
    try {
      reply = this.unwrapReply((await this.call('POST', this.decisionPath(), signal, body, this.apiKey(), this.typedHeaders(request))).body);
    } catch (error) {
      throw this.explainFailure(error);
    }
    const read = readSystemOneEnvelope(reply, this.name);
    if (!this.noulAsChoice) return read;
    const answers = { ...read.answers };
    for (const [id, question] of Object.entries(request.questions)) {
      if (question.type === 'noul' && Object.hasOwn(answers, id)) answers[id] = noulFromChoice(answers[id]);
    }
    return { ...read, answers };
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

  private decision(answer: SystemOneChoice, source: string): ProviderAnswer {
    return {
      decision: answer.choice,
      confidence: this.confidenceOf(answer),
      probabilities: answer.probabilities,
      rationale: `${source}: ${probabilitiesBestFirst(answer.probabilities)}`,
    };
  }
}
