import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ConfigStatus } from './config-status.service';
import { withDeadline } from '../common/deadline';
import { ProviderRegistry } from './provider-registry.service';
import { AttemptContext, EvaluateReply, EvaluateRequest } from './provider.interface';
import { readAnswer } from './answer-reader';
import { askThroughChoices, typedCapabilities } from './choice-bridge';
import { System1InputError } from './input-error';
import { planQuestions } from './question-capabilities';
import { widenScores } from './wide-scores';
import {
  DecideMeta,
  DecideRequest,
  DecideResult,
  FailedAttempt,
  ModelRef,
  QUESTION_ERROR_CODES,
  QuestionError,
  QuestionResult,
} from './question.types';
import { checkDecideRequest } from './request-check';
import { isRecord } from '../common/is-record';
import { abortable } from '../common/abortable';
import { attemptError, FALLBACK_CODES } from './attempt-error';
import { CustomProvider } from './custom-provider';
import { LIBRARY_OPTIONS, type System1Options } from './decision-options';
import { calibrateAnswer } from './calibrate-answer';
import { RuntimeProviders } from './runtime-providers';

type Attempt = { ok: true; reply: EvaluateReply; model: string | null | undefined; notes: string[] } | { ok: false; error: QuestionError };

/**
 * The library's `decide`: named typed questions about one state, asked of the first engine of the chain
 * that can take them. The chain moves on when a whole attempt fails (unavailable, unsupported, over a
 * limit, timed out, an engine error, an unreadable reply); a bad answer to one question inside a readable
 * reply is that question's error and the others stand. Cancellation ends the chain.
 */
@Injectable()
export class QuestionChainService {
  private readonly logger = new Logger('Library');

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly runtime: RuntimeProviders,
    private readonly calibration: CalibrationService,
    private readonly configStatus: ConfigStatus,
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(LIBRARY_OPTIONS) private readonly options: System1Options,
  ) {}

  /** The engines tried in order: an explicit model alone, else the defaults with duplicates removed. */
  chainFor(request: Pick<DecideRequest, 'model'>): ModelRef[] {
    if (request.model) return [request.model];
    const { provider, fallback } = this.config.gateway;
    const refs: ModelRef[] = [this.options.defaultModel ?? { provider }, ...(this.options.fallbackModels ?? fallback.map((name) => ({ provider: name })))];
    const seen = new Set<string>();
    return refs.filter((ref) => {
      const key = JSON.stringify([ref.provider, ref.model ?? null]);
      return !seen.has(key) && seen.add(key);
    });
  }

  async decide(request: DecideRequest): Promise<DecideResult> {
    checkDecideRequest(request);
    const started = performance.now();
    const requestId = randomUUID();
    const chain = this.chainFor(request);
    if (chain.length === 0 || !chain[0].provider) throw new System1InputError('model', 'is needed: no default model is configured');
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs ?? this.config.gateway.timeout_s * 1000;
    const broken = this.brokenConfig(request);
    if (broken) {
      return { answers: this.everyQuestion(request, broken), meta: this.meta(requestId, chain[0], [], started) };
    }

    const attempts: FailedAttempt[] = [];
    let last: QuestionError = { code: 'cancelled', message: 'the caller cancelled the call' };
    for (const [index, ref] of chain.entries()) {
      if (request.signal?.aborted) break;
      const attempt = await this.attempt(ref, request, timeoutMs, requestId, index === chain.length - 1);
      if (attempt.ok) {
        const meta = this.meta(requestId, chain[0], attempts, started);
        return this.answered(ref, attempt, request, meta);
      }
      last = attempt.error;
      this.logger.warn(`[${requestId}] ${ref.provider}${ref.model ? ` ${ref.model}` : ''}: ${attempt.error.code}: ${attempt.error.message}`);
      if (!FALLBACK_CODES.has(attempt.error.code)) break;
      attempts.push({ ...ref, error: attempt.error });
    }
    if (request.signal?.aborted) last = { code: 'cancelled', message: 'the caller cancelled the call' };
    return { answers: this.everyQuestion(request, last), meta: this.meta(requestId, chain[0], attempts, started) };
  }

  /**
   * A config with problems answers nothing, as `system1_decide` answers `config_error`: running on defaults
   * past a typo would ask an engine the user did not choose. An engine the application registered itself,
   * named explicitly, needs no config and still runs.
   */
  private brokenConfig(request: DecideRequest): QuestionError | undefined {
    if (request.model && this.runtime.get(request.model.provider)) return undefined;
    const errors = this.configStatus.errors();
    if (errors.length === 0) return undefined;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more: see configErrors())` : '';
    return { code: 'unavailable', message: `the config is broken: ${errors[0].message}${more}` };
  }

  private everyQuestion(request: DecideRequest, error: QuestionError): Record<string, QuestionResult> {
    return Object.fromEntries(Object.keys(request.questions).map((id): [string, QuestionResult] => [id, { status: 'error', error }]));
  }

  /** A provider by name: one the application registered, else one from the config (with the model asked). */
  resolve(ref: ModelRef): { provider: CustomProvider; name: string } | { problem: string } {
    const custom = this.runtime.get(ref.provider);
    if (custom) return { provider: custom, name: ref.provider };
    const built = ref.model ? this.registry.instanceWithModel(ref.provider, ref.model) : this.registry.instance(ref.provider);
    if (built.provider) return { provider: built.provider, name: ref.provider };
    return { problem: `provider ${JSON.stringify(ref.provider)} is not usable: ${built.problem}` };
  }

  /**
   * One engine's attempt. Questions of a type the engine does not answer move the whole request to the next
   * engine; the last engine of the chain answers the others, and those questions are `unsupported`.
   */
  private async attempt(ref: ModelRef, request: DecideRequest, timeoutMs: number, requestId: string, last: boolean): Promise<Attempt> {
    const resolved = this.resolve(ref);
    if ('problem' in resolved) return { ok: false, error: { code: 'unavailable', message: resolved.problem } };
    const { provider } = resolved;
    try {
      const capabilities = provider.capabilities();
      const typed = typedCapabilities(provider, capabilities);
      const widening = widenScores(ref.provider, request.questions, typed);
      const plan = planQuestions(ref.provider, { ...request, questions: widening.questions }, typed, last);
      if (!plan.ok) return plan;
      const asked: EvaluateRequest = {
        state: request.state,
        questions: plan.questions,
        ...(request.images && { images: request.images }),
        ...(request.longContext && { longContext: true }),
        ...(ref.model && { model: ref.model }),
      };
      const ask = (context: AttemptContext) =>
        provider.evaluate
          ? provider.evaluate(asked, context)
          : askThroughChoices({ capabilities: () => capabilities, decide: provider.decide!.bind(provider) }, asked, context);
      const reply = await this.underDeadline(ref.provider, request.signal, timeoutMs, requestId, ask);
      if (!isRecord(reply) || !isRecord(reply.answers)) {
        return { ok: false, error: { code: 'invalid_response', message: `${ref.provider} returned no answers object` } };
      }
      const errors = { ...plan.refused, ...(isRecord(reply.errors) ? reply.errors : {}) };
      const restored = { ...reply, answers: widening.restore(reply.answers), ...(Object.keys(errors).length > 0 && { errors }) };
      return { ok: true, reply: restored, model: capabilities.model, notes: widening.notes };
    } catch (error) {
      return { ok: false, error: attemptError(error, timeoutMs) };
    }
  }

  /**
   * One engine call whose signal aborts at the deadline, on the caller's cancel and when the engine is
   * unregistered; it settles at the first of them even if the engine ignores its signal.
   */
  private underDeadline<T>(
    engine: string,
    caller: AbortSignal | undefined,
    timeoutMs: number,
    requestId: string,
    ask: (context: AttemptContext) => Promise<T>,
  ): Promise<T> {
    return this.runtime.track(engine, (unregistered) =>
      withDeadline((deadline) => {
        const cancels = [caller, unregistered].filter((signal): signal is AbortSignal => signal !== undefined);
        return abortable(Promise.resolve(ask({ signal: AbortSignal.any([deadline, ...cancels]), requestId })), cancels);
      }, timeoutMs),
    );
  }

  private answered(ref: ModelRef, attempt: Extract<Attempt, { ok: true }>, request: DecideRequest, meta: DecideMeta): DecideResult {
    const { reply, model } = attempt;
    const threshold = request.minConfidence ?? this.options.minConfidence ?? this.config.gateway.min_confidence;
    const answers: Record<string, QuestionResult> = {};
    for (const [id, question] of Object.entries(request.questions)) {
      const declined = reply.errors && Object.hasOwn(reply.errors, id) ? reply.errors[id] : undefined;
      if (declined) {
        const known = isRecord(declined) && QUESTION_ERROR_CODES.includes(declined.code) && typeof declined.message === 'string';
        const unknown = { code: 'invalid_response' as const, message: `${ref.provider} declined ${JSON.stringify(id)} without a known error code` };
        answers[id] = { status: 'error', error: known ? declined : unknown };
        continue;
      }
      const read = readAnswer(Object.hasOwn(reply.answers, id) ? reply.answers[id] : undefined, question);
      if (!read.ok) {
        answers[id] = { status: 'error', error: { code: 'invalid_response', message: `${ref.provider} answer to ${JSON.stringify(id)}: ${read.problem}` } };
        continue;
      }
      const answer = calibrateAnswer(this.calibration, ref.provider, model, question, read.answer);
      answers[id] = { status: 'ok', answer, belowThreshold: answer.confidence !== undefined && answer.confidence < threshold };
    }
    const unexpected = Object.keys(reply.answers).filter((id) => !Object.hasOwn(request.questions, id));
    const warnings = [...attempt.notes, ...unexpected.map((id) => `${ref.provider} answered a question that was not asked: ${JSON.stringify(id)} (ignored)`)];
    const executedModel = reply.model ?? ref.model ?? model ?? undefined;
    return {
      answers,
      meta: {
        ...meta,
        executed: { provider: ref.provider, ...(executedModel && { model: executedModel }) },
        ...(reply.usage && { usage: reply.usage }),
        ...(reply.approximate !== undefined && { approximate: reply.approximate }),
        ...(reply.degraded !== undefined && { degraded: reply.degraded }),
        ...(warnings.length > 0 && { warnings }),
      },
    };
  }

  private meta(requestId: string, requested: ModelRef, attempts: FailedAttempt[], started: number): DecideMeta {
    return {
      requestId,
      requested,
      ...(attempts.length > 0 && { attempts: [...attempts] }),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
  }
}
