import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { LoadedConfig } from '../../config/config.loader';
import { type DecisionError, DecisionErrorCode } from '../errors/decision-error';
import { ReplicaRunner } from '../pools/replica-runner';
import type {
  AttemptRecord,
  DecisionOutcome,
  DecisionPolicy,
  DecisionRequest,
  QuestionOutcome,
} from '../questions/decision.types';
import type { ModelRef } from '../questions/question.types';
import type { Pool } from '../registry/engine-pool';
import { EngineResolver } from '../registry/engine-resolver';
import type { System1Provider } from '../registry/provider.interface';
import { callerScope } from './caller-scope';
import { DecisionCache } from './decision-cache.service';
import { DecisionGate } from './decision-gate';
import type { DecisionObserver } from './decision-observer';
import { capabilitiesFor, type CopyCall, EngineAttempts, type ReadAnswers } from './engine-attempts';
import { capabilitiesData } from './engine-reply';

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

type ChainPass =
  | ({ answered: true; attempts: AttemptRecord[] } & Pick<ReadAnswers, 'answers' | 'meta'>)
  | { attempts: AttemptRecord[]; last: DecisionError; allCooling: boolean };

/**
 * THE decision pipeline: named typed questions about one state, asked of the first engine of the chain
 * that can take them, read, calibrated and held to the threshold. Every surface (the MCP tools, the
 * library, the OpenAI router, the routing hook, the skill picker, calibrate) is a thin adapter over it.
 * What it leans on: the gate (a broken config, a pause), the engines behind each name, each engine's
 * replicas (pools/replica-runner.ts), one engine asked and read (engine-attempts.ts), and the cache.
 */
@Injectable()
export class DecisionService {
  private readonly logger = new Logger('Decisions');

  constructor(
    private readonly config: LoadedConfig,
    private readonly gate: DecisionGate,
    private readonly engines: EngineResolver,
    private readonly replicas: ReplicaRunner,
    private readonly attempts: EngineAttempts,
    private readonly cache: DecisionCache,
  ) {}

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

  decide(request: DecisionRequest, policy: DecisionPolicy = {}): Promise<DecisionOutcome> {
    // A promise chain, not an async function: nothing of this step stays suspended while the engine works.
    return this.run(request, policy).then((outcome) => {
      const caller = callerScope.getStore()?.name;
      for (const observer of this.observers) {
        try {
          observer({ surface: policy.surface ?? 'other', outcome, ...(caller !== undefined && { caller }) });
        } catch {
          // Counting must never cost a caller its answer.
        }
      }
      return outcome;
    });
  }

  private async run(request: DecisionRequest, policy: DecisionPolicy): Promise<DecisionOutcome> {
    const started = performance.now();
    const requestId = request.requestId ?? randomUUID();
    const chain = this.chainFor(request.model, policy);
    const threshold = request.minConfidence ?? policy.minConfidence ?? this.config.gateway.min_confidence;
    const outcome = (
      answers: Record<string, QuestionOutcome>,
      attempts: AttemptRecord[],
      meta?: Partial<DecisionOutcome>,
    ): DecisionOutcome => ({
      requestId,
      answers,
      requested: this.withModel(chain[0]),
      attempts,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      threshold,
      ...meta,
    });
    const unanswered = this.gate.whyNotAsked(request);
    if (unanswered) {
      this.logger.warn(`[${requestId}] ${unanswered.code}: ${unanswered.message}`);
      return outcome(everyQuestion(request, unanswered), []);
    }

    const deadline = policy.budgetMs === undefined ? Infinity : started + policy.budgetMs;
    const fullTimeoutMs = request.timeoutMs ?? policy.timeoutMs ?? this.config.gateway.timeout_s * 1000;
    // Without a budget for the whole call, a wait for a cooling engine may take as long as one attempt may.
    const waitUntil = Math.min(deadline, started + fullTimeoutMs);
    const fits = this.attempts.fitsInForce();
    for (;;) {
      const pass = await this.tryChain(chain, request, policy, { requestId, threshold, deadline, fullTimeoutMs, fits });
      if ('answered' in pass) return outcome(pass.answers, pass.attempts, pass.meta);
      if (request.signal?.aborted) return outcome(everyQuestion(request, CANCELLED), pass.attempts);
      const recovery =
        pass.allCooling && this.waitsForRecovery(policy)
          ? await this.replicas.waitForRecovery(this.chainKeys(chain), waitUntil, request.signal)
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
    for (const ref of chain) {
      if (request.signal?.aborted === true || performance.now() >= call.deadline) {
        allCooling = false;
        break;
      }
      const resolved = this.engines.resolvePool(ref);
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
      let cached = cacheKey === undefined ? undefined : this.cache.get(cacheKey);
      // [state]: a reply another replica kept (one store read, only on a miss here and only with a store).
      if (cached === undefined && cacheKey !== undefined && this.cache.sharing)
        cached = await this.cache.fetchShared(cacheKey);
      if (cached) {
        const reply = { ok: true as const, ...cached };
        attempts.push({ ...ref, outcome: 'cached', latencyMs: 0 });
        const answers = this.attempts.readReply(ref, reply, request, call.threshold, policy.calibrate !== false);
        return { answered: true, answers, attempts, meta: this.attempts.replyMeta(ref, reply) };
      }
      const copyCall: CopyCall = {
        ref,
        request,
        policy,
        threshold: call.threshold,
        requestId: call.requestId,
        last: ref === chain[chain.length - 1],
      };
      const turn = await this.replicas.run<ReadAnswers>({
        ref,
        pool,
        policy,
        signal: request.signal,
        deadline: call.deadline,
        fullTimeoutMs: call.fullTimeoutMs,
        ask: (member, signal, timeoutMs) => this.attempts.copy(copyCall, member, signal, timeoutMs),
        failed: (error) => this.traceFailure(call.requestId, ref, error),
      });
      attempts.push(...turn.records);
      if ('answered' in turn) {
        const { answers, meta, reply } = turn.answered;
        if (cacheKey !== undefined) this.cache.keep(cacheKey, reply, answers, cacheScope);
        return { answered: true, answers, attempts, meta };
      }
      if (turn.asked) allCooling = false;
      if (turn.error) last = turn.error;
      if (turn.stopChain) break;
    }
    return { attempts, last, allCooling: allCooling && attempts.length > 0 };
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
      const resolved = this.engines.resolvePool(ref);
      if ('pool' in resolved) for (const key of this.replicas.keysOf(ref, resolved.pool)) keys.add(key);
    }
    return keys;
  }

  /** A model reference with the model the engine will ask filled in, when the reference leaves it to the engine. */
  private withModel(ref: ModelRef | undefined): ModelRef {
    if (!ref || ref.model !== undefined) return ref as ModelRef;
    const model = this.resolveCapabilities(ref)?.model;
    return typeof model === 'string' && model !== '' ? { ...ref, model } : ref;
  }

  /** A provider by name: one the application registered, else one from the config (with the model asked). */
  resolve(ref: ModelRef): { provider: System1Provider } | { problem: string } {
    return this.engines.resolve(ref);
  }

  /** The engines behind `ref`: a pool of replicas, or the one engine (a registered one, or one configured). */
  resolvePool(ref: ModelRef): { pool: Pool } | { problem: string } {
    return this.engines.resolvePool(ref);
  }

  /** The capabilities of the engine behind `ref`, when it is usable and says what they are. */
  resolveCapabilities(ref: ModelRef): ReturnType<System1Provider['capabilities']> | undefined {
    const resolved = this.engines.resolve(ref);
    if (!('provider' in resolved)) return undefined;
    try {
      return capabilitiesData(ref.provider, () => capabilitiesFor(resolved.provider, ref)).facts;
    } catch {
      return undefined; // its attempt reports it
    }
  }
}

function everyQuestion(request: DecisionRequest, error: DecisionError): Record<string, QuestionOutcome> {
  return Object.fromEntries(
    Object.keys(request.questions).map((id): [string, QuestionOutcome] => [id, { status: 'error', error }]),
  );
}
