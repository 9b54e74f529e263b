import { performance } from 'node:perf_hooks';
import { type DecisionError, DecisionErrorCode } from '../errors/decision-error';
import { ERROR_MEANINGS } from '../errors/error-meanings';
import type { AttemptRecord, DecisionPolicy } from '../questions/decision.types';
import type { ModelRef } from '../questions/question.types';
import { type Admission, type CooldownService, endpointKey } from './cooldown.service';
import { pickEndpoint } from './endpoint-balancer';
import { type EndpointLoad } from './endpoint-load.service';
import { isPool, type Pool, type PoolMember } from '../registry/engine-pool';
import { type Hedging } from './hedging.service';
import { waitForRecovery } from './recovery-wait';
import { LOST_RACE, raceCopies } from './replica-race';

/**
 * What one copy of the request to one replica came back with, as the pipeline read it (`read`: whatever the
 * pipeline makes of an answer; this room never looks inside). `notSent`: refused before the engine was asked;
 * `replied`: the engine answered, but not readably.
 */
export type CopyAnswer<A> = { ok: true; read: A } | { ok: false; error: DecisionError; notSent?: true; replied?: true };

/** One engine's turn in a call: its replicas, what the call allows them, and how to ask one of them. */
export interface PoolTurn<A> {
  ref: ModelRef;
  pool: Pool;
  policy: Pick<DecisionPolicy, 'cooldown' | 'hedgeAfterMs'>;
  /** The caller's cancel. */
  signal?: AbortSignal;
  /** The call's budget ends here (`performance.now()` time); Infinity without one. */
  deadline: number;
  /** One attempt's budget when the deadline leaves it whole. */
  fullTimeoutMs: number;
  /** One copy of the request to `member`, within `timeoutMs`; `signal` is the copy's own (a lost race ends it). */
  ask(member: PoolMember, signal: AbortSignal | undefined, timeoutMs: number): Promise<CopyAnswer<A>>;
  /** Told of each failure, for the pipeline's trace. */
  failed(error: DecisionError): void;
}

/**
 * How an engine's turn ended: answered, or the attempts it made and the last failure (`asked`: some replica
 * was asked, not every one skipped while cooling down; `stopChain`: the failure is one no other engine of the
 * chain would answer better).
 */
export type TurnOutcome<A> =
  | { answered: A; records: AttemptRecord[] }
  | { records: AttemptRecord[]; error?: DecisionError; asked: boolean; stopChain: boolean };

/** A replica to ask, and whether this call holds its trial. */
interface ReplicaPick {
  member: PoolMember;
  admission: Admission;
}

/** How one copy of the request to one replica ended. */
type CopyResult<A> =
  | { ok: true; member: PoolMember; latencyMs: number; read: A }
  | {
      ok: false;
      member: PoolMember;
      latencyMs: number;
      error: DecisionError;
      engineFailed: boolean;
      /** A hedge that timed out in the time it was left: its replica may still be asked with the whole timeout. */
      unjudged?: boolean;
    };

/** One replica's part in a turn: its answers, or its failure and whether the engine itself failed. */
type ReplicaStep<A> =
  { won: A; records: AttemptRecord[] } | { error: DecisionError; engineFailed: boolean; records: AttemptRecord[] };

const NO_TRIAL: Admission = { remainingMs: 0, trial: false };

/**
 * The replicas of one engine asked in a call: the balancer's pick among those not cooling down, the next one
 * after a failure of the engine itself, a hedged second copy when the first is slow, each replica's load
 * counted and its cooldown judged by what its copy showed.
 */
export class ReplicaRunner {
  /** Advanced at each pick among replicas, so equal ones share their ties in turn. */
  private turn = 0;

  constructor(
    private readonly cooldown: CooldownService,
    private readonly load: EndpointLoad,
    private readonly hedging: Hedging,
  ) {}

  /** The engine's replicas asked in the balancer's order until one answers, the budget ends or one must not be. */
  async run<A>(turn: PoolTurn<A>): Promise<TurnOutcome<A>> {
    const { ref, pool } = turn;
    const records: AttemptRecord[] = [];
    const tried = new Set<PoolMember>();
    let error: DecisionError | undefined;
    let asked = false;
    // At most one second copy per call: a hedge is never hedged again, nor each replica tried after a failure.
    let hedgeAfterMs = isPool(pool) ? this.hedging.delayFor(ref.provider, turn.policy.hedgeAfterMs) : undefined;
    while (turn.signal?.aborted !== true && performance.now() < turn.deadline) {
      const timeoutMs = Math.max(1, Math.min(turn.fullTimeoutMs, turn.deadline - performance.now()));
      const pick = this.pickReplica(turn, tried, timeoutMs);
      if (!pick) break;
      if ('coolingMs' in pick) {
        if (tried.size === 0) {
          error = {
            code: DecisionErrorCode.CoolingDown,
            message: `cooling down: ${Math.ceil(pick.coolingMs / 1000)} s left`,
          };
          records.push({ ...ref, outcome: 'skipped', error, latencyMs: 0 });
        }
        break;
      }
      asked = true;
      tried.add(pick.member);
      const hedge = hedgeAfterMs !== undefined && hedgeAfterMs < timeoutMs ? hedgeAfterMs : undefined;
      const step = await this.onReplica(turn, pick, tried, timeoutMs, hedge);
      if (step.records.some((record) => record.hedge)) hedgeAfterMs = undefined;
      records.push(...step.records);
      if ('won' in step) return { answered: step.won, records };
      error = step.error;
      turn.failed(error);
      if (!ERROR_MEANINGS[error.code].fallsBack) return { records, error, asked, stopChain: true };
      // Another replica answers the same request no better when the gateway refused it, or never sent it.
      if (!step.engineFailed) break;
    }
    return { records, error, asked, stopChain: false };
  }

  /** Every cooldown an engine's replicas are kept under. */
  keysOf(ref: ModelRef, pool: Pool): string[] {
    return pool.map((member) => endpointKey(ref, member));
  }

  /** Waits until one of `keys` may be asked again (see recovery-wait.ts). */
  waitForRecovery(keys: ReadonlySet<string>, until: number, signal: AbortSignal | undefined): Promise<boolean> {
    return waitForRecovery(this.cooldown, keys, until, signal);
  }

  /**
   * The replica to ask next, among those not yet tried: the balancer's pick among those not cooling down
   * (claiming the trial of one whose window is over), or how long until the first of them is askable.
   */
  private pickReplica(
    { ref, pool, policy }: PoolTurn<unknown>,
    tried: ReadonlySet<PoolMember>,
    holdMs: number,
  ): ReplicaPick | { coolingMs: number } | undefined {
    const untried = tried.size === 0 ? pool : pool.filter((member) => !tried.has(member));
    if (untried.length === 0) return undefined;
    if (policy.cooldown === false) return { member: this.balance(ref, untried), admission: NO_TRIAL };
    const peek = (member: PoolMember) => this.cooldown.peekMs(endpointKey(ref, member));
    const open = untried.filter((member) => peek(member) <= 0);
    while (open.length > 0) {
      // A replica whose window is over is tried first: its trial is the only way back into the pool, and a
      // failed one costs this call one attempt before the next replica answers.
      const trials = open.some((member) => peek(member) < 0) ? open.filter((member) => peek(member) < 0) : open;
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
  private async onReplica<A>(
    turn: PoolTurn<A>,
    pick: ReplicaPick,
    tried: Set<PoolMember>,
    timeoutMs: number,
    hedgeAfterMs: number | undefined,
  ): Promise<ReplicaStep<A>> {
    const { ref, pool } = turn;
    const started = performance.now();
    const race = await raceCopies<CopyResult<A>>(
      (hedge, signal) => {
        if (!hedge) return this.runCopy(turn, pick, signal, timeoutMs, false);
        const second = this.pickHedge(ref, pool, tried);
        if (!second || !this.hedging.spend(ref.provider)) return undefined;
        tried.add(second.member);
        const left = Math.max(1, timeoutMs - (performance.now() - started));
        return this.runCopy(turn, second, signal, left, true);
      },
      (result) => result.ok,
      hedgeAfterMs,
      turn.signal,
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
    if (winner?.ok) return { won: winner.read, records };
    // Without the hedge its replica would have been asked next, with the whole timeout: it still may be.
    for (const { result } of race.copies) if (!result.ok && result.unjudged) tried.delete(result.member);
    const failed = race.copies
      .map((copy) => copy.result)
      .filter((result): result is Extract<CopyResult<A>, { ok: false }> => !result.ok);
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
    return { member: this.balance(ref, well), admission: NO_TRIAL };
  }

  /**
   * One copy of the request to one replica, its load counted while it runs, and the verdict it gives on the
   * replica's health: an answer ends its cooldown, a failure of the engine itself counts towards one, anything
   * else (a cancel, a refusal before sending) hands back a trial the call held. `signal`: this copy's (the
   * caller's cancel, and the end of a race it lost). `cutShort`: a hedge, given only what the first copy's
   * deadline left of the attempt's time: running out of it says nothing of its replica.
   */
  private async runCopy<A>(
    turn: PoolTurn<A>,
    { member, admission }: ReplicaPick,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    cutShort: boolean,
  ): Promise<CopyResult<A>> {
    const { ref, policy } = turn;
    const key = endpointKey(ref, member);
    const started = performance.now();
    const done = this.load.start(ref.provider, member);
    let verdict = false;
    try {
      const copy = await turn.ask(member, signal, timeoutMs);
      // A request refused before it was sent took no engine time.
      const latencyMs = !copy.ok && copy.notSent ? 0 : performance.now() - started;
      // The loser of a race was slow at least this long: a sample for the balancer, never a failure.
      const lost = signal?.aborted === true && !turn.signal?.aborted;
      done(
        copy.ok || copy.replied ? 'answered' : copy.error.code === DecisionErrorCode.Timeout || lost ? 'slow' : 'other',
        latencyMs,
      );
      if (copy.ok) {
        if (policy.cooldown !== false) this.cooldown.succeeded(key);
        verdict = true;
        return { ok: true, member, latencyMs, read: copy.read };
      }
      const { error } = copy;
      // Only the engine's own failures count: not what the call asked for, nor a caller (or a race) that gave up.
      const engineFailed = !copy.notSent && !signal?.aborted && ERROR_MEANINGS[error.code].enginesFault;
      // Nor a hedge's timeout in the part of the attempt's time the first copy left it.
      const unjudged = engineFailed && cutShort && error.code === DecisionErrorCode.Timeout;
      if (unjudged) return { ok: false, member, latencyMs, error, engineFailed: false, unjudged };
      if (policy.cooldown !== false && engineFailed) verdict = this.cooldown.failed(key, error.code);
      return { ok: false, member, latencyMs, error, engineFailed };
    } finally {
      done('other', 0);
      // Whatever happened above, a trial this call holds ends with a verdict or is handed back.
      if (admission.trial && !verdict) this.cooldown.release(key);
    }
  }
}
