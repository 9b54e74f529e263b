import { withDeadline } from '../../common/deadline';
import { isRecord } from '../../common/is-record';
import { type CalibrationService } from '../../calibration/calibration.service';
import { type DecisionError, DecisionErrorCode, toDecisionError } from '../errors/decision-error';
import type { CopyAnswer } from '../pools/replica-runner';
import type { PoolMember } from '../registry/engine-pool';
import type { AttemptContext, System1Provider } from '../registry/provider.interface';
import { type RuntimeProviders } from '../registry/runtime-providers';
import { capabilityRefusal, planQuestions, type QuestionCapabilities } from '../questions/question-capabilities';
import { questionPasses } from '../questions/question-passes';
import type { DecisionOutcome, DecisionPolicy, DecisionRequest, QuestionOutcome } from '../questions/decision.types';
import type { ModelRef, Question } from '../questions/question.types';
import { readAnswer } from './answer-reader';
import { calibrateAnswer } from './calibrate-answer';
import type { CachedReply } from './decision-cache.service';
import { capabilitiesData, replyData, replyFacts } from './engine-reply';
import { joinedReplies } from './joined-replies';
import { widenScores } from './wide-scores';

/** `notSent`: the attempt failed before the engine was asked (a provider or model the call cannot use, a refusal). */
export type Attempt = ({ ok: true } & CachedReply) | { ok: false; error: DecisionError; notSent?: true };

/** One engine asked once: which, for which request, within what time, and whether it is the chain's last. */
export interface AttemptJob {
  ref: ModelRef;
  provider: System1Provider;
  request: DecisionRequest;
  timeoutMs: number;
  requestId: string;
  last: boolean;
  /** Ask a call over the engine's limits in passes (DecisionPolicy.inPasses). */
  inPasses?: boolean;
}

/** A reply read for the call: each question's outcome, the call's facts, and the reply itself (for the cache). */
export interface ReadAnswers {
  answers: Record<string, QuestionOutcome>;
  meta: Partial<DecisionOutcome>;
  reply: CachedReply;
}

/** What a call's copies share: the call's request and policy, its threshold, and the chain's position. */
export interface CopyCall {
  ref: ModelRef;
  request: DecisionRequest;
  policy: Pick<DecisionPolicy, 'calibrate' | 'retryBadAnswers' | 'inPasses'>;
  threshold: number;
  requestId: string;
  last: boolean;
}

/**
 * One engine asked, and what it answered read: the question plan for what the engine takes (scores widened,
 * types it lacks refused before sending), the call under its deadline and the caller's cancel, the reply
 * read question by question, calibrated and held to the threshold (a bad answer fails its question alone).
 */
export class EngineAttempts {
  constructor(
    private readonly runtime: RuntimeProviders,
    private readonly calibration: CalibrationService,
  ) {}

  /** The fits in force (see CalibrationService.fitsInForce): a cached answer was calibrated with these. */
  fitsInForce(): number {
    return this.calibration.fitsInForce();
  }

  /** One copy of the call to one replica, as the replica runner asks it (`signal`: the copy's own). */
  async copy(
    call: CopyCall,
    member: PoolMember,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<CopyAnswer<ReadAnswers>> {
    const { ref, request, policy } = call;
    const attempt = await this.attempt({
      ref,
      provider: member.provider,
      request: signal === request.signal ? request : { ...request, signal },
      timeoutMs,
      requestId: call.requestId,
      last: call.last,
      inPasses: policy.inPasses,
    });
    if (!attempt.ok) return attempt;
    const answers = this.readReply(ref, attempt, request, call.threshold, policy.calibrate !== false);
    const unreadable = policy.retryBadAnswers ? firstUnreadable(answers) : undefined;
    if (unreadable) return { ok: false, error: unreadable, replied: true };
    const { ok: _ok, ...reply } = attempt;
    return { ok: true, read: { answers, meta: this.replyMeta(ref, attempt), reply } };
  }

  /**
   * One engine's attempt. Questions of a type the engine does not answer move the whole request to the next
   * engine; the last engine of the chain answers the others, and those questions are `unsupported`.
   */
  async attempt({ ref, provider, request, timeoutMs, requestId, last, inPasses }: AttemptJob): Promise<Attempt> {
    try {
      const { facts: capabilities, typed } = capabilitiesData(ref.provider, () => capabilitiesFor(provider, ref));
      const widening = widenScores(ref.provider, request.questions, typed);
      const planned =
        widening.questions === request.questions ? request : { ...request, questions: widening.questions };
      const plan = planQuestions(ref.provider, planned, inPasses ? withoutCallLimits(typed) : typed, last);
      if (!plan.ok) return { ...plan, notSent: true };
      const passes = inPasses ? questionPasses(plan.questions, typed) : [plan.questions];
      // A pass still over a limit (one question holding more candidates than a request may) is refused here.
      const over = inPasses ? firstRefusal(ref.provider, passes, typed) : undefined;
      if (over) return { ok: false, error: over, notSent: true };
      const asked = (questions: Record<string, Question>) => ({
        ...(request.state !== undefined && { state: request.state }),
        questions,
        ...(request.images && { images: request.images }),
        ...(request.longContext && { longContext: true }),
        ...(ref.model && { model: ref.model }),
      });
      const ask = <T>(work: (context: AttemptContext) => Promise<T>) =>
        this.underDeadline(ref.provider, request.signal, timeoutMs, requestId, work);
      // The passes go together, under one deadline: one that fails stops the others (see withDeadline).
      const { reply, stray } =
        passes.length === 1
          ? replyData(
              ref.provider,
              await ask((context) => provider.evaluate(asked(passes[0]), context)),
              request.questions,
            )
          : joinedReplies(
              (await ask((context) => Promise.all(passes.map((pass) => provider.evaluate(asked(pass), context))))).map(
                (sent, i) => replyData(ref.provider, sent, passes[i]),
              ),
            );
      const errors = hasKeys(plan.refused) ? { ...plan.refused, ...reply.errors } : reply.errors;
      const restored = {
        ...reply,
        answers: widening.restore(reply.answers),
        ...(errors !== undefined && hasKeys(errors) && { errors }),
      };
      return { ok: true, reply: restored, stray, model: capabilities.model, notes: widening.notes };
    } catch (error) {
      return { ok: false, error: withModelShortened(toDecisionError(error, timeoutMs), ref.model) };
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
      withDeadline((signal) => ask({ signal, requestId }), timeoutMs, cancelsOf(caller, unregistered)),
    );
  }

  /** Each question's answer read against it, calibrated and held to the threshold; a bad one fails alone. */
  readReply(
    ref: ModelRef,
    attempt: Extract<Attempt, { ok: true }>,
    request: DecisionRequest,
    threshold: number,
    calibrate: boolean,
  ): Record<string, QuestionOutcome> {
    const { reply, model } = attempt;
    const answers: Record<string, QuestionOutcome> = {};
    for (const [id, question] of Object.entries(request.questions)) {
      const declined = reply.errors && Object.hasOwn(reply.errors, id) ? reply.errors[id] : undefined;
      if (declined) {
        answers[id] = { status: 'error', error: knownError(declined, ref.provider, id) };
        continue;
      }
      const read = readAnswer(Object.hasOwn(reply.answers, id) ? reply.answers[id] : undefined, question);
      if (!read.ok) {
        answers[id] = {
          status: 'error',
          error: {
            code: DecisionErrorCode.InvalidResponse,
            message: `${ref.provider} answer to ${JSON.stringify(id)}: ${read.problem}`,
          },
        };
        continue;
      }
      const raw = reply.approximate === true || !calibrate;
      const answer = raw ? read.answer : calibrateAnswer(this.calibration, ref.provider, model, question, read.answer);
      answers[id] = {
        status: 'ok',
        answer,
        belowThreshold: answer.confidence !== undefined && answer.confidence < threshold,
        ...(read.rationale !== undefined && { rationale: read.rationale }),
        ...(reply.approximate === true && { approximate: true }),
      };
    }
    return answers;
  }

  replyMeta(ref: ModelRef, attempt: Extract<Attempt, { ok: true }>): Partial<DecisionOutcome> {
    const { reply, stray, model, notes } = attempt;
    const facts = replyFacts(ref.provider, reply, stray);
    const warnings = notes.length === 0 ? facts.warnings : [...notes, ...facts.warnings];
    const executedModel = facts.model ?? ref.model ?? (typeof model === 'string' ? model : undefined);
    return {
      executed: { provider: ref.provider, ...(executedModel && { model: executedModel }) },
      ...(facts.usage && { usage: facts.usage }),
      ...(facts.approximate !== undefined && { approximate: facts.approximate }),
      ...(facts.degraded !== undefined && { degraded: facts.degraded }),
      ...(warnings.length > 0 && { warnings }),
    };
  }
}

const NO_CANCELS: readonly AbortSignal[] = [];

function hasKeys(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/** The signals that cancel an attempt, of those there are (one array, built once per attempt). */
function cancelsOf(caller: AbortSignal | undefined, unregistered: AbortSignal | undefined): readonly AbortSignal[] {
  if (caller && unregistered) return [caller, unregistered];
  if (caller) return [caller];
  return unregistered ? [unregistered] : NO_CANCELS;
}

function firstRefusal(engine: string, passes: Record<string, Question>[], typed: QuestionCapabilities) {
  for (const questions of passes) {
    const refusal = capabilityRefusal(engine, { questions }, typed);
    if (refusal) return refusal;
  }
  return undefined;
}

/** An engine's limits without those of a whole request (questions, candidates over all), which passes keep. */
function withoutCallLimits({ max_questions: _q, max_total_options: _o, ...perQuestion }: QuestionCapabilities) {
  return perQuestion;
}

/** What the engine takes for the model the call names, where that differs by model. */
export function capabilitiesFor(provider: System1Provider, ref: ModelRef) {
  return ref.model !== undefined && typeof provider.modelCapabilities === 'function'
    ? provider.modelCapabilities(ref.model)
    : provider.capabilities();
}

/** Longer model names than this are shortened in an engine's error message (the attempt names them in full). */
const MODEL_IN_MESSAGE_CHARS = 40;

/** An engine's error with a long chosen model name cut short wherever the message repeats it. */
function withModelShortened(error: DecisionError, model: string | undefined): DecisionError {
  if (model === undefined || model.length <= MODEL_IN_MESSAGE_CHARS || !error.message.includes(model)) return error;
  return { ...error, message: error.message.replaceAll(model, `${model.slice(0, MODEL_IN_MESSAGE_CHARS)}…`) };
}

/** An engine's own error for one question, if it uses our words; else an unreadable reply. */
function knownError(declined: unknown, engine: string, id: string): DecisionError {
  const codes: readonly unknown[] = Object.values(DecisionErrorCode);
  if (isRecord(declined) && codes.includes(declined.code) && typeof declined.message === 'string')
    return declined as unknown as DecisionError;
  return {
    code: DecisionErrorCode.InvalidResponse,
    message: `${engine} declined ${JSON.stringify(id)} without a known error code`,
  };
}

/** The first answer that could not be read (abstentions and refusals are answers of a kind, not failures). */
function firstUnreadable(answers: Record<string, QuestionOutcome>): DecisionError | undefined {
  for (const outcome of Object.values(answers)) {
    if (outcome.status === 'error' && outcome.error.code === DecisionErrorCode.InvalidResponse) return outcome.error;
  }
  return undefined;
}
