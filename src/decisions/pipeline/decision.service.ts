import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { withDeadline } from '../../common/deadline';
import { isRecord } from '../../common/is-record';
import { CalibrationService } from '../../calibration/calibration.service';
import type { LoadedConfig } from '../../config/config.loader';
import { readAnswer } from './answer-reader';
import { calibrateAnswer } from './calibrate-answer';
import { callerScope } from '../callers/caller-scope';
import { ConfigStatus } from './config-status.service';
import { type Admission, CooldownService } from '../pools/cooldown.service';
import { DecisionError, DecisionErrorCode, toDecisionError } from '../errors/decision-error';
import { ERROR_MEANINGS } from '../errors/error-meanings';
import { pickEndpoint } from '../pools/endpoint-balancer';
import { EndpointLoad } from '../pools/endpoint-load.service';
import { endpointKey, isPool, type Pool, type PoolMember, singleEngine } from '../pools/engine-pool';
import { type CachedReply, DecisionCache } from './decision-cache.service';
import { Hedging } from '../pools/hedging.service';
import { waitForRecovery } from '../pools/recovery-wait';
import { LOST_RACE, raceCopies } from '../pools/replica-race';
import type { DecisionObserver } from './decision-observer';
import type {
  AttemptRecord,
  DecisionOutcome,
  DecisionPolicy,
  DecisionRequest,
  QuestionOutcome,
} from './decision.types';
import { PauseState } from './pause-state.service';
import { capabilitiesData, replyData, replyFacts } from './engine-reply';
import type { AttemptContext, System1Provider } from '../registry/provider.interface';
import { ProviderRegistry } from '../registry/provider-registry.service';
import { planQuestions } from './question-capabilities';
import type { ModelRef } from './question.types';
import { RuntimeProviders } from '../registry/runtime-providers';
import { widenScores } from './wide-scores';

/** `notSent`: the attempt failed before the engine was asked (a provider or model the call cannot use, a refusal). */
type Attempt = ({ ok: true } & CachedReply) | { ok: false; error: DecisionError; notSent?: true };

const CANCELLED: DecisionError = { code: DecisionErrorCode.Cancelled, message: 'the caller cancelled the call' };

/** What every attempt of one call shares. */
interface CallContext {
  requestId: string;
  threshold: number;
  /** The call's budget ends here (`performance.now()` time); Infinity without one. */
  deadline: number;
  /** One attempt's budget when the deadline leaves it whole. */
  fullTimeoutMs: number;
  /** The fits in force (see CalibrationService.fitsInForce), part of the decision cache's key. */
  fits: number;
}

/** One attempt's part of it: its budget, and whether its engine is the chain's last. */
interface AttemptCall extends CallContext {
  timeoutMs: number;
  last: boolean;
  /**
   * A hedge, given only what the first copy's deadline left of the attempt's time: running out of it says
   * nothing of its replica, which was never given the whole timeout it is judged by.
   */
  cutShort?: boolean;
}

/** A replica to ask, and whether this call holds its trial. */
interface ReplicaPick {
  member: PoolMember;
  admission: Admission;
}

/** How one copy of the request to one replica ended. */
type CopyResult =
  | {
      ok: true;
      member: PoolMember;
      latencyMs: number;
      answers: Record<string, QuestionOutcome>;
      meta: Partial<DecisionOutcome>;
      reply: CachedReply;
    }
  | {
      ok: false;
      member: PoolMember;
      latencyMs: number;
      error: DecisionError;
      engineFailed: boolean;
      /** A hedge that timed out in the time it was left: its replica may still be asked with the whole timeout. */
      unjudged?: boolean;
    };

/** One replica's part in a call: its answers, or its failure and whether the engine itself failed. */
type ReplicaStep =
  | {
      answers: Record<string, QuestionOutcome>;
      records: AttemptRecord[];
      meta: Partial<DecisionOutcome>;
      reply: CachedReply;
    }
  | { error: DecisionError; engineFailed: boolean; records: AttemptRecord[] };

type ChainPass =
  | {
      answered: true;
      answers: Record<string, QuestionOutcome>;
      attempts: AttemptRecord[];
      meta: Partial<DecisionOutcome>;
    }
  | { attempts: AttemptRecord[]; last: DecisionError; allCooling: boolean };

/**
 * THE decision pipeline: named typed questions about one state, asked of the first engine of the chain
 * that can take them, read, calibrated and held to the threshold. Every surface (the MCP tools, the
 * library, the OpenAI router, the routing hook, the skill picker, calibrate) is a thin adapter over it.
 */
@Injectable()
export class DecisionService {
  private readonly logger = new Logger('Decisions');

  constructor(
    private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly runtime: RuntimeProviders,
    private readonly calibration: CalibrationService,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
    private readonly cooldown: CooldownService,
    private readonly load: EndpointLoad,
    private readonly hedging: Hedging,
    private readonly cache: DecisionCache,
  ) {}

  /** Advanced at each pick among replicas, so equal ones share their ties in turn. */
  private turn = 0;

  /** The configured chain, built once: the config does not change while the process runs. */
  private configuredChain?: ModelRef[];

  /** The engines tried in order: an explicit model alone, else the chain with duplicates removed. */
  chainFor(model: ModelRef | undefined, policy: Pick<DecisionPolicy, 'chain'> = {}): ModelRef[] {
    if (model) return [model];
    if (!policy.chain)
      return (this.configuredChain ??= this.distinct([
        { provider: this.config.gateway.provider },
        ...this.config.gateway.fallback.map((name) => ({ provider: name })),
      ]));
    return this.distinct(policy.chain);
  }

  private distinct(refs: ModelRef[]): ModelRef[] {
    const seen = new Set<string>();
    return refs.filter((ref) => {
      const key = JSON.stringify([ref.provider, ref.model ?? null]);
      return !seen.has(key) && seen.add(key);
    });
  }

  /** Told of every decision (metrics, the health summary); kept out of the pipeline itself. */
  private readonly observers = new Set<DecisionObserver>();

  /** Adds an observer of every decision made from now on; returns its removal. */
  observe(observer: DecisionObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async decide(request: DecisionRequest, policy: DecisionPolicy = {}): Promise<DecisionOutcome> {
    const outcome = await this.run(request, policy);
    const caller = callerScope.getStore()?.name;
    for (const observer of this.observers) {
      try {
        observer({ surface: policy.surface ?? 'other', outcome, ...(caller !== undefined && { caller }) });
      } catch {
        // Counting must never cost a caller its answer.
      }
    }
    return outcome;
  }

  private async run(request: DecisionRequest, policy: DecisionPolicy): Promise<DecisionOutcome> {
    const started = performance.now();
    const requestId = request.requestId ?? randomUUID();
    const chain = this.chainFor(request.model, policy);
    const threshold = request.minConfidence ?? policy.minConfidence ?? this.config.gateway.min_confidence;
    const outcome = (answers: Record<string, QuestionOutcome>, attempts: AttemptRecord[]): DecisionOutcome => ({
      requestId,
      answers,
      requested: this.withModel(chain[0]),
      attempts,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      threshold,
    });
    const unanswered = this.whyNotAsked(request);
    if (unanswered) {
      this.logger.warn(`[${requestId}] ${unanswered.code}: ${unanswered.message}`);
      return outcome(everyQuestion(request, unanswered), []);
    }

    const deadline = policy.budgetMs === undefined ? Infinity : started + policy.budgetMs;
    const fullTimeoutMs = request.timeoutMs ?? policy.timeoutMs ?? this.config.gateway.timeout_s * 1000;
    // Without a budget for the whole call, a wait for a cooling engine may take as long as one attempt may.
    const waitUntil = Math.min(deadline, started + fullTimeoutMs);
    const fits = this.calibration.fitsInForce();
    for (;;) {
      const pass = await this.tryChain(chain, request, policy, { requestId, threshold, deadline, fullTimeoutMs, fits });
      if ('answered' in pass) return { ...outcome(pass.answers, pass.attempts), ...pass.meta };
      if (request.signal?.aborted) return outcome(everyQuestion(request, CANCELLED), pass.attempts);
      const recovery =
        pass.allCooling && this.waitsForRecovery(policy)
          ? await waitForRecovery(this.cooldown, this.chainKeys(chain), waitUntil, request.signal)
          : false;
      if (!recovery)
        return outcome(everyQuestion(request, request.signal?.aborted ? CANCELLED : pass.last), pass.attempts);
      this.logger.debug(`[${requestId}] every engine was cooling down; one is ready again, asking the chain again`);
    }
  }

  /**
   * One pass over the chain: the first engine that answers, or the attempts and the last failure. A pooled
   * provider's replicas are tried in the balancer's order after a failure of the engine itself, before the next
   * provider. `allCooling`: every engine was skipped while cooling down, none asked.
   */
  private async tryChain(
    chain: ModelRef[],
    request: DecisionRequest,
    policy: DecisionPolicy,
    call: CallContext,
  ): Promise<ChainPass> {
    const attempts: AttemptRecord[] = [];
    let last: DecisionError = { code: DecisionErrorCode.Unavailable, message: 'no engine could answer in time' };
    let allCooling = true;
    const stopped = () => request.signal?.aborted === true || performance.now() >= call.deadline;
    chain: for (const ref of chain) {
      if (stopped()) {
        allCooling = false;
        break;
      }
      const resolved = this.resolvePool(ref);
      if ('problem' in resolved) {
        allCooling = false;
        last = { code: DecisionErrorCode.Unavailable, message: resolved.problem };
        attempts.push({ ...ref, outcome: 'failed', error: last, latencyMs: 0 });
        this.traceFailure(call.requestId, ref, last);
        continue;
      }
      const { pool } = resolved;
      // serve-http's callers each get a scope of their own (their name): no caller reads or evicts another's answers.
      const cacheScope = policy.cacheScope ?? callerScope.getStore()?.name;
      const cacheKey =
        policy.cache === false ? undefined : this.cache.key(pool[0].provider, ref, request, call.fits, cacheScope);
      const cached = cacheKey === undefined ? undefined : this.cache.get(cacheKey);
      if (cached) {
        const reply = { ok: true as const, ...cached };
        attempts.push({ ...ref, outcome: 'cached', latencyMs: 0 });
        const answers = this.readReply(ref, reply, request, call.threshold, policy.calibrate !== false);
        return { answered: true, answers, attempts, meta: this.replyMeta(ref, reply) };
      }
      const tried = new Set<PoolMember>();
      // At most one second copy per call: a hedge is never hedged again, nor each replica tried after a failure.
      let hedgeAfterMs = isPool(pool) ? this.hedging.delayFor(ref.provider, policy.hedgeAfterMs) : undefined;
      while (!stopped()) {
        const timeoutMs = Math.max(1, Math.min(call.fullTimeoutMs, call.deadline - performance.now()));
        const pick = this.pickReplica(ref, pool, tried, policy, timeoutMs);
        if (!pick) break;
        if ('coolingMs' in pick) {
          if (tried.size === 0) {
            last = {
              code: DecisionErrorCode.CoolingDown,
              message: `cooling down: ${Math.ceil(pick.coolingMs / 1000)} s left`,
            };
            attempts.push({ ...ref, outcome: 'skipped', error: last, latencyMs: 0 });
          }
          break;
        }
        allCooling = false;
        tried.add(pick.member);
        const hedge = hedgeAfterMs !== undefined && hedgeAfterMs < timeoutMs ? hedgeAfterMs : undefined;
        const step = await this.onReplica(
          ref,
          pool,
          pick,
          tried,
          request,
          policy,
          { ...call, timeoutMs, last: ref === chain[chain.length - 1] },
          hedge,
        );
        if (step.records.some((record) => record.hedge)) hedgeAfterMs = undefined;
        attempts.push(...step.records);
        if ('answers' in step) {
          if (cacheKey !== undefined) this.cache.keep(cacheKey, step.reply, step.answers, cacheScope);
          return { answered: true, answers: step.answers, attempts, meta: step.meta };
        }
        last = step.error;
        this.traceFailure(call.requestId, ref, last);
        if (!ERROR_MEANINGS[last.code].fallsBack) break chain;
        // Another replica answers the same request no better when the gateway refused it, or never sent it.
        if (!step.engineFailed) break;
      }
    }
    return { attempts, last, allCooling: allCooling && attempts.length > 0 };
  }

  /**
   * The replica of `pool` to ask next, among those not yet tried: the balancer's pick among those not cooling
   * down (claiming the trial of one whose window is over), or how long until the first of them is askable.
   */
  private pickReplica(
    ref: ModelRef,
    pool: Pool,
    tried: ReadonlySet<PoolMember>,
    policy: DecisionPolicy,
    holdMs: number,
  ): ReplicaPick | { coolingMs: number } | undefined {
    const untried = pool.filter((member) => !tried.has(member));
    if (untried.length === 0) return undefined;
    if (policy.cooldown === false)
      return { member: this.balance(ref, untried), admission: { remainingMs: 0, trial: false } };
    const open = untried.filter((member) => this.cooldown.peekMs(endpointKey(ref, member)) <= 0);
    while (open.length > 0) {
      // A replica whose window is over is tried first: its trial is the only way back into the pool, and a
      // failed one costs this call one attempt before the next replica answers.
      const trials = open.filter((member) => this.cooldown.peekMs(endpointKey(ref, member)) < 0);
      const member = this.balance(ref, trials.length > 0 ? trials : open);
      const admission = this.cooldown.admit(endpointKey(ref, member), holdMs);
      if (admission.remainingMs === 0) return { member, admission };
      open.splice(open.indexOf(member), 1); // another call took its trial a moment ago
    }
    // Through admit, which also clamps a window that ends further ahead than cooldown_s (a stale file); one whose
    // window ended a moment ago is admitted here, and asked.
    let coolingMs = Infinity;
    for (const member of untried) {
      const admission = this.cooldown.admit(endpointKey(ref, member), holdMs);
      if (admission.remainingMs === 0) return { member, admission };
      coolingMs = Math.min(coolingMs, admission.remainingMs);
    }
    return { coolingMs };
  }

  private balance(ref: ModelRef, members: readonly PoolMember[]): PoolMember {
    if (members.length === 1) return members[0];
    const candidates = members.map((member) => ({ member, ...this.load.of(ref.provider, member) }));
    return pickEndpoint(candidates, this.turn++)!.member;
  }

  /**
   * The request to one replica and, when a pool's replica has not answered after `hedgeAfterMs`, a second copy
   * to another (never the same one, within the hedge budget): the first answer wins and the other copy is
   * cancelled, its connection closed. Each copy is recorded: `answered` or `hedged` (the second copy's answer),
   * `cancelled` (the loser), or `failed`.
   */
  private async onReplica(
    ref: ModelRef,
    pool: Pool,
    pick: ReplicaPick,
    tried: Set<PoolMember>,
    request: DecisionRequest,
    policy: DecisionPolicy,
    call: AttemptCall,
    hedgeAfterMs: number | undefined,
  ): Promise<ReplicaStep> {
    const started = performance.now();
    const race = await raceCopies<CopyResult>(
      (hedge, signal) => {
        if (!hedge) return this.runCopy(ref, pool, pick, request, signal, policy, call);
        const second = this.pickHedge(ref, pool, tried);
        if (!second || !this.hedging.spend(ref.provider)) return undefined;
        tried.add(second.member);
        const timeoutMs = Math.max(1, call.timeoutMs - (performance.now() - started));
        return this.runCopy(ref, pool, second, request, signal, policy, { ...call, timeoutMs, cutShort: true });
      },
      (result) => result.ok,
      hedgeAfterMs,
      request.signal,
    );
    const records = race.copies.map((copy): AttemptRecord => {
      const { member, latencyMs } = copy.result;
      const base = {
        ...ref,
        ...(isPool(pool) && { endpoint: member.url }),
        ...(copy.hedge && { hedge: true as const }),
        latencyMs,
      };
      if (copy === race.winner) return { ...base, outcome: copy.hedge ? 'hedged' : 'answered' };
      if (copy.cancelled || copy.result.ok)
        return { ...base, outcome: 'cancelled', error: { code: DecisionErrorCode.Cancelled, message: LOST_RACE } };
      return { ...base, outcome: 'failed', error: copy.result.error };
    });
    const winner = race.winner?.result;
    if (winner?.ok) return { answers: winner.answers, meta: winner.meta, reply: winner.reply, records };
    // Without the hedge its replica would have been asked next, with the whole timeout: it still may be.
    for (const { result } of race.copies) if (!result.ok && result.unjudged) tried.delete(result.member);
    const failed = race.copies
      .map((copy) => copy.result)
      .filter((result): result is Extract<CopyResult, { ok: false }> => !result.ok);
    return {
      error: failed[failed.length - 1].error,
      engineFailed: failed.some((result) => result.engineFailed),
      records,
    };
  }

  /** A replica for the second copy: one not tried yet and well (not cooling, nor on trial). */
  private pickHedge(ref: ModelRef, pool: Pool, tried: ReadonlySet<PoolMember>): ReplicaPick | undefined {
    const well = pool.filter((member) => !tried.has(member) && this.cooldown.peekMs(endpointKey(ref, member)) === 0);
    if (well.length === 0) return undefined;
    return { member: this.balance(ref, well), admission: { remainingMs: 0, trial: false } };
  }

  /**
   * One copy of the request to one replica, its load counted while it runs, and the verdict it gives on the
   * replica's health: an answer ends its cooldown, a failure of the engine itself counts towards one, anything
   * else (a cancel, a refusal before sending) hands back a trial the call held. `signal`: this copy's (the
   * caller's cancel, and the end of a race it lost).
   */
  private async runCopy(
    ref: ModelRef,
    pool: Pool,
    { member, admission }: ReplicaPick,
    request: DecisionRequest,
    signal: AbortSignal | undefined,
    policy: DecisionPolicy,
    call: AttemptCall,
  ): Promise<CopyResult> {
    const key = endpointKey(ref, member);
    const started = performance.now();
    const done = this.load.start(ref.provider, member);
    let verdict = false;
    try {
      const attempt = await this.attempt(
        ref,
        member.provider,
        signal === request.signal ? request : { ...request, signal },
        call.timeoutMs,
        call.requestId,
        call.last,
      );
      // A request refused before it was sent took no engine time.
      const latencyMs = !attempt.ok && 'notSent' in attempt ? 0 : performance.now() - started;
      // The loser of a race was slow at least this long: a sample for the balancer, never a failure.
      const lost = signal?.aborted === true && !request.signal?.aborted;
      done(
        attempt.ok ? 'answered' : attempt.error.code === DecisionErrorCode.Timeout || lost ? 'slow' : 'other',
        latencyMs,
      );
      let error: DecisionError;
      if (attempt.ok) {
        const answers = this.readReply(ref, attempt, request, call.threshold, policy.calibrate !== false);
        const unreadable = policy.retryBadAnswers ? firstUnreadable(answers) : undefined;
        if (!unreadable) {
          if (policy.cooldown !== false) this.cooldown.succeeded(key);
          verdict = true;
          const { ok: _ok, ...reply } = attempt;
          return { ok: true, member, latencyMs, answers, meta: this.replyMeta(ref, attempt), reply };
        }
        error = unreadable;
      } else {
        error = attempt.error;
      }
      // Only the engine's own failures count: not what the call asked for, nor a caller (or a race) that gave up.
      const engineFailed = !('notSent' in attempt) && !signal?.aborted && ERROR_MEANINGS[error.code].enginesFault;
      // Nor a hedge's timeout in the part of the attempt's time the first copy left it.
      const unjudged = engineFailed && call.cutShort === true && error.code === DecisionErrorCode.Timeout;
      if (unjudged) return { ok: false, member, latencyMs, error, engineFailed: false, unjudged };
      if (policy.cooldown !== false && engineFailed) verdict = this.cooldown.failed(key, error.code);
      return { ok: false, member, latencyMs, error, engineFailed };
    } finally {
      done('other', 0);
      // Whatever happened above, a trial this call holds ends with a verdict or is handed back.
      if (admission.trial && !verdict) this.cooldown.release(key);
    }
  }

  /** Each surface logs failed attempts in its own contract's words; this line is for tracing the pipeline. */
  private traceFailure(requestId: string, ref: ModelRef, error: DecisionError): void {
    this.logger.debug(
      `[${requestId}] ${ref.provider}${ref.model ? ` ${ref.model}` : ''}: ${error.code}: ${error.message}`,
    );
  }

  private waitsForRecovery(policy: DecisionPolicy): boolean {
    return policy.cooldown !== false && (policy.waitForRecovery ?? this.config.gateway.wait_for_recovery);
  }

  /** Every cooldown the chain's engines are kept under: each replica of each pool. */
  private chainKeys(chain: ModelRef[]): Set<string> {
    const keys = new Set<string>();
    for (const ref of chain) {
      const resolved = this.resolvePool(ref);
      if ('pool' in resolved) for (const member of resolved.pool) keys.add(endpointKey(ref, member));
    }
    return keys;
  }

  /**
   * A config with problems answers nothing (running on defaults past a typo would ask an engine the user
   * did not choose), and neither does a paused System-1, on every surface. An engine the application
   * registered itself, named explicitly, needs no config and runs despite config problems (not when paused).
   */
  private whyNotAsked(request: DecisionRequest): DecisionError | undefined {
    const ownEngine = request.model !== undefined && this.runtime.get(request.model.provider) !== undefined;
    const errors = ownEngine ? [] : this.configStatus.errors();
    if (errors.length > 0) {
      return {
        code: DecisionErrorCode.ConfigError,
        message: `the config is broken: ${errors.map((e) => e.message).join('; ')}`,
      };
    }
    if (this.pause.isPaused())
      return {
        code: DecisionErrorCode.Paused,
        message: 'System-1 is paused (system1 toggle on resumes it); reason it through yourself',
      };
    return undefined;
  }

  /** A model reference with the model the engine will ask filled in, when the reference leaves it to the engine. */
  private withModel(ref: ModelRef | undefined): ModelRef {
    if (!ref || ref.model !== undefined) return ref as ModelRef;
    const model = this.resolveCapabilities(ref)?.model;
    return typeof model === 'string' && model !== '' ? { ...ref, model } : ref;
  }

  /** A provider by name: one the application registered, else one from the config (with the model asked). */
  resolve(ref: ModelRef): { provider: System1Provider } | { problem: string } {
    const resolved = this.resolvePool(ref);
    return 'pool' in resolved ? { provider: resolved.pool[0].provider } : resolved;
  }

  /** The engines behind `ref`: a pool of replicas, or the one engine (a registered one, or one configured). */
  resolvePool(ref: ModelRef): { pool: Pool } | { problem: string } {
    const custom = this.runtime.get(ref.provider);
    if (custom) return { pool: singleEngine(custom) };
    if (!this.registry.knows(ref.provider)) {
      const names = this.registry
        .available()
        .map((definition) => definition.name)
        .join(', ');
      return {
        problem:
          `no provider is named ${JSON.stringify(ref.provider)}: register it with registerProvider, ` +
          `or configure one (built in: ${names})`,
      };
    }
    const pool = ref.model
      ? this.registry.instanceWithModel(ref.provider, ref.model)
      : this.registry.instance(ref.provider).pool;
    if (pool) return { pool };
    return {
      problem:
        `provider ${JSON.stringify(ref.provider)} is not usable: ` +
        `${this.registry.unusable(ref.provider, ref.model)}`,
    };
  }

  /** The capabilities of the engine behind `ref`, when it is usable and says what they are. */
  resolveCapabilities(ref: ModelRef): ReturnType<System1Provider['capabilities']> | undefined {
    const resolved = this.resolve(ref);
    if (!('provider' in resolved)) return undefined;
    try {
      return capabilitiesData(ref.provider, () => capabilitiesFor(resolved.provider, ref)).facts;
    } catch {
      return undefined; // its attempt reports it
    }
  }

  /**
   * One engine's attempt. Questions of a type the engine does not answer move the whole request to the next
   * engine; the last engine of the chain answers the others, and those questions are `unsupported`.
   */
  private async attempt(
    ref: ModelRef,
    provider: System1Provider,
    request: DecisionRequest,
    timeoutMs: number,
    requestId: string,
    last: boolean,
  ): Promise<Attempt> {
    try {
      const { facts: capabilities, typed } = capabilitiesData(ref.provider, () => capabilitiesFor(provider, ref));
      const widening = widenScores(ref.provider, request.questions, typed);
      const plan = planQuestions(ref.provider, { ...request, questions: widening.questions }, typed, last);
      if (!plan.ok) return { ...plan, notSent: true };
      const asked = {
        ...(request.state !== undefined && { state: request.state }),
        questions: plan.questions,
        ...(request.images && { images: request.images }),
        ...(request.longContext && { longContext: true }),
        ...(ref.model && { model: ref.model }),
      };
      const sent = await this.underDeadline(ref.provider, request.signal, timeoutMs, requestId, (context) =>
        provider.evaluate(asked, context),
      );
      const { reply, stray } = replyData(ref.provider, sent, request.questions);
      const errors = { ...plan.refused, ...reply.errors };
      const restored = {
        ...reply,
        answers: widening.restore(reply.answers),
        ...(Object.keys(errors).length > 0 && { errors }),
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
      withDeadline(
        (signal) => ask({ signal, requestId }),
        timeoutMs,
        [caller, unregistered].filter((signal): signal is AbortSignal => signal !== undefined),
      ),
    );
  }

  /** Each question's answer read against it, calibrated and held to the threshold; a bad one fails alone. */
  private readReply(
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

  private replyMeta(ref: ModelRef, attempt: Extract<Attempt, { ok: true }>): Partial<DecisionOutcome> {
    const { reply, stray, model, notes } = attempt;
    const facts = replyFacts(ref.provider, reply, stray);
    const warnings = [...notes, ...facts.warnings];
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

/** What the engine takes for the model the call names, where that differs by model. */
function capabilitiesFor(provider: System1Provider, ref: ModelRef) {
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

function everyQuestion(request: DecisionRequest, error: DecisionError): Record<string, QuestionOutcome> {
  return Object.fromEntries(
    Object.keys(request.questions).map((id): [string, QuestionOutcome] => [id, { status: 'error', error }]),
  );
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
