import { deepFreeze } from '../../common/deep-freeze';
import { isRecord } from '../../common/is-record';
import { EngineStatusError, ProviderError } from '../../decisions/errors/decision-error';
import type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  System1Provider,
} from '../../decisions/registry/provider.interface';
import type { QuestionCapabilities } from '../../decisions/questions/question-capabilities';
import type { EngineConnection } from '../http/engine-connection';
import {
  type AnsweredBy,
  type DialectEngine,
  keyWords,
  type SystemOneDialect,
  type SystemOneSettings,
} from './systemone-dialect';
import {
  noulFromChoice,
  rationaleOf,
  readSystemOneEnvelope,
  SYSTEMONE_PATH,
  typedSystemOneRequest,
} from './systemone-protocol';

/**
 * The one engine of every System One dialect: the questions of a request go in ONE POST, written as the
 * dialect writes them, and each answer comes back read as it reads them, with a rationale naming who
 * answered and listing the probabilities best first.
 */
export class DialectProvider<S extends SystemOneSettings> implements System1Provider {
  readonly name: string;
  private fixedCapabilities?: ProviderCapabilities;

  constructor(
    private readonly dialect: SystemOneDialect<S>,
    private readonly settings: S,
    private readonly connection: EngineConnection,
  ) {
    this.name = dialect.name;
  }

  /**
   * Every System One engine answers a batch in one pass with per-option probabilities. The settings are fixed
   * for the engine's life, so its capabilities are too: one frozen object, which the pipeline reads once.
   */
  capabilities(): ProviderCapabilities {
    return (this.fixedCapabilities ??= deepFreeze({
      batch: true,
      probabilities: true,
      model: this.settings.model || null,
      questions: this.dialect.limits?.(this.settings) ?? protocolLimits(),
      ...this.dialect.facts,
    }));
  }

  health(context: AttemptContext): Promise<HealthProbeResult> {
    return this.dialect.health(this.engineView(), context);
  }

  /**
   * Typed questions in one request, sent as written (see `typedSystemOneRequest`); each answer is read by
   * the pipeline against its question, with a rationale added here.
   */
  async evaluate(request: EvaluateRequest, { signal }: AttemptContext): Promise<EvaluateReply> {
    const { dialect } = this;
    if (dialect.key?.required && !this.connection.apiKey())
      throw new ProviderError(keyWords(dialect.key.required, this.connection.keyVariable));
    const declined = dialect.decline?.(request, this.settings);
    // Most dialects decline nothing: then the request goes as it came, nothing of it copied.
    const refused = declined !== undefined && Object.keys(declined).length > 0;
    const questions = refused
      ? Object.fromEntries(Object.entries(request.questions).filter(([id]) => !Object.hasOwn(declined, id)))
      : request.questions;
    const withErrors = (reply: EvaluateReply): EvaluateReply => (refused ? { ...reply, errors: declined } : reply);
    if (Object.keys(questions).length === 0) return withErrors({ answers: {} });

    const sent = refused ? { ...request, questions } : request;
    const noulAsChoice = dialect.question?.noulAsChoice ?? false;
    const body = typedSystemOneRequest(sent, {
      model: this.settings.model || undefined,
      noulAsChoice,
      bareCandidates: dialect.question?.bareCandidates ?? 'self-described',
    });
    let reply: unknown;
    try {
      const path = dialect.path?.(this.settings) ?? SYSTEMONE_PATH;
      const response = await this.connection.request('POST', path, signal, { body, headers: dialect.headers?.(sent) });
      reply = dialect.answer?.unwrap ? dialect.answer.unwrap(response.body, this.engineView()) : response.body;
    } catch (error) {
      throw this.explainFailure(error);
    }
    const read = readSystemOneEnvelope(reply, this.name);
    const by = this.answeredBy(reply as Record<string, unknown>, read.model);
    const answers: Record<string, unknown> = {};
    // Answers to questions nobody asked are passed on too: the pipeline warns about them.
    for (const [id, raw] of Object.entries(read.answers)) {
      let answer = raw;
      const question = Object.hasOwn(questions, id) ? questions[id] : undefined;
      if (question && isRecord(answer)) {
        if (dialect.answer?.normalise) answer = dialect.answer.normalise(id, answer);
        if (question.type === 'noul' && noulAsChoice) answer = noulFromChoice(answer);
        if (isRecord(answer)) answer = { ...answer, rationale: rationaleOf(by.source, answer) };
      }
      answers[id] = answer;
    }
    return withErrors({ ...read, answers, ...(by.model !== undefined && { model: by.model }) });
  }

  private answeredBy(body: Record<string, unknown>, model: string | undefined): AnsweredBy {
    const { answeredBy } = this.dialect.answer ?? {};
    if (answeredBy) return answeredBy(body, model, this.settings);
    return { model, source: `${this.name} ${model ?? this.settings.model ?? 'server model'}` };
  }

  /**
   * Turns an engine failure into the error a user can act on: a 401 or 403 says which variable holds the
   * key (never the key), and a status the dialect explains gets its advice; anything else goes through.
   */
  private explainFailure(error: unknown): unknown {
    if (!(error instanceof EngineStatusError)) return error;
    const keyProblem = error.status === 401 || error.status === 403;
    const advice = this.dialect.statusAdvice?.[error.status] ?? (keyProblem ? this.keyAdvice() : undefined);
    if (advice === undefined) return error;
    return new EngineStatusError(error.status, `${error.message}; ${advice}`, error.retryAfterS);
  }

  private keyAdvice(): string {
    const { keyVariable } = this.connection;
    if (this.dialect.key?.refused) return keyWords(this.dialect.key.refused, keyVariable);
    return this.connection.apiKey()
      ? `${this.name} refused the key in ${keyVariable}: check that it matches the engine's key`
      : `${this.name} wants a key: set ${keyVariable} to the key the engine was started with`;
  }

  private engineView(): DialectEngine<S> {
    return {
      settings: this.settings,
      keyVariable: this.connection.keyVariable,
      apiKey: () => this.connection.apiKey(),
      keyAdvice: () => this.keyAdvice(),
      get: (path, signal) => this.connection.request('GET', path, signal),
    };
  }
}

/** The protocol's own question types and limits (wire-contracts §1.1), for a dialect that states none. */
function protocolLimits(): QuestionCapabilities {
  return { types: ['choice', 'noul', 'score'], max_levels: 10 };
}
