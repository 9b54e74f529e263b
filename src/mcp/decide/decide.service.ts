import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SCHEMA_VERSION, YES_NO_OPTIONS } from '../../common/limits';
import { DecisionErrorCode } from '../../decisions/errors/decision-error';
import { gatewayLogger } from '../../logging/gateway.logger';
import type { AttemptRecord, DecisionOutcome } from '../../decisions/questions/decision.types';
import { DecisionService } from '../../decisions/pipeline/decision.service';
import type { ChoiceQuestion } from '../../decisions/questions/question.types';
import { selfDescribed } from '../../decisions/pipeline/question-text';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { AttemptDto, DecideResponseDto } from '../dto/decide-response.dto';
import { GatewayErrorCode, REFUSALS, S1_CODES } from './gateway-error';
import { checkDecideRequest, requestIdOf } from './request-validation';

/** Attempt outcomes that are no trouble worth a log line. */
const QUIET_OUTCOMES: ReadonlySet<AttemptDto['outcome']> = new Set([
  'ok',
  'abstained',
  'hedged',
  'cancelled',
  'cached',
]);

/** The one question `system1_decide` asks; its id in the pipeline's answers. */
const QUESTION_ID = 'decision';

/**
 * `system1_decide` over the one pipeline: the request DTO becomes one choice question (yes/no when it has
 * no options), and the pipeline's outcome becomes the S1 envelope. A malformed answer moves on to the next
 * engine, as the S1 spec says.
 */
@Injectable()
export class DecideService {
  private readonly logger = new Logger('Decide');

  constructor(private readonly decisions: DecisionService) {}

  /**
   * `fallbackId`: the id to answer under when the request gives none (the HTTP request's); else a new one.
   * `signal`: the client's cancel (MCP's notifications/cancelled, a closed HTTP request), which ends the engine's call.
   */
  async decide(raw: unknown, fallbackId?: string, signal?: AbortSignal): Promise<DecideResponseDto> {
    const started = performance.now();
    const requestId = requestIdOf(raw, () => fallbackId ?? randomUUID());
    const check = checkDecideRequest(raw);
    if (!check.ok) {
      this.logger.warn(`[${requestId}] ${check.message}`);
      return envelope(requestId, started, [], {
        status: 'error',
        error: { code: GatewayErrorCode.InvalidRequest, message: check.message },
      });
    }
    const request = check.request;
    if (gatewayLogger.writes('debug'))
      this.logger.debug(`[${requestId}] question: ${JSON.stringify(request.question)}`);
    const outcome = await this.decisions.decide(
      {
        ...(request.context !== undefined && { state: request.context }),
        questions: { [QUESTION_ID]: choiceOf(request) },
        ...(request.min_confidence !== undefined && { minConfidence: request.min_confidence }),
        ...(signal && { signal }),
        requestId,
      },
      { retryBadAnswers: true, surface: 'system1_decide' },
    );
    const reply = s1Reply(outcome, started);
    for (const attempt of reply.attempts) {
      // A hedge that won, or the copy it beat, is the pool working as meant: no warning.
      if (!QUIET_OUTCOMES.has(attempt.outcome))
        this.logger.warn(`[${requestId}] ${attempt.provider} ${attempt.outcome}: ${attempt.detail}`);
    }
    this.logger.log(
      `[${requestId}] ${reply.status}${reply.provider ? ` by ${reply.provider}` : ''}` +
        `${reply.confidence !== null ? ` with confidence ${reply.confidence}` : ''}` +
        `${reply.calibrated ? ' (calibrated)' : ''}`,
    );
    return reply;
  }
}

/** The options as candidates that stand for themselves; no options means yes or no. */
function choiceOf(request: DecideRequestDto): ChoiceQuestion {
  return { type: 'choice', instructions: request.question, criteria: selfDescribed(request.options ?? YES_NO_OPTIONS) };
}

/** The pipeline's outcome of the one question as the S1 envelope. */
function s1Reply(outcome: DecisionOutcome, started: number): DecideResponseDto {
  const answer = outcome.answers[QUESTION_ID];
  const abstention =
    answer.status === 'error' && answer.error.code === DecisionErrorCode.Abstained ? answer.error.message : undefined;
  const attempts = outcome.attempts.map((attempt) =>
    abstention !== undefined &&
    (attempt.outcome === 'answered' || attempt.outcome === 'hedged' || attempt.outcome === 'cached')
      ? { ...s1Attempt(attempt), outcome: 'abstained' as const, detail: abstention }
      : s1Attempt(attempt),
  );
  const build = (fields: Partial<DecideResponseDto> & Pick<DecideResponseDto, 'status'>) =>
    envelope(outcome.requestId, started, attempts, fields);
  const provider = outcome.executed?.provider ?? null;
  if (answer.status === 'error') {
    const { code, message } = answer.error;
    if (code === DecisionErrorCode.Paused) return build({ status: 'abstained', rationale: message });
    if (code === DecisionErrorCode.Abstained) return build({ status: 'abstained', provider, rationale: message });
    if (code === DecisionErrorCode.ConfigError)
      return build({ status: 'error', error: { code: GatewayErrorCode.ConfigError, message } });
    const failures = attempts.map((a) => `${a.provider} ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`).join('; ');
    return build({
      status: 'error',
      error: { code: S1_CODES[code].error, message: failures ? `every provider failed: ${failures}` : message },
    });
  }
  if (answer.answer.type !== 'choice') throw new Error('system1_decide asks a choice question');
  const { value, confidence, probabilities, calibrated } = answer.answer;
  const shown = answer.approximate ? null : probabilities;
  if (answer.belowThreshold) {
    const reason = `confidence ${confidence} is below the threshold ${outcome.threshold}`;
    return build({
      status: 'abstained',
      provider,
      confidence,
      probabilities: shown,
      calibrated,
      rationale: answer.rationale ? `${reason}; ${answer.rationale}` : reason,
    });
  }
  return build({
    status: 'decided',
    decision: value,
    confidence,
    probabilities: shown,
    calibrated,
    rationale: answer.rationale ?? null,
    provider,
  });
}

function s1Attempt(attempt: AttemptRecord): AttemptDto {
  const latency_ms = Math.round(attempt.latencyMs);
  const endpoint = attempt.endpoint !== undefined ? { endpoint: attempt.endpoint } : {};
  if (attempt.outcome === 'answered')
    return { provider: attempt.provider, outcome: 'ok', latency_ms, detail: null, ...endpoint };
  if (attempt.outcome === 'hedged' || attempt.outcome === 'cached')
    return { provider: attempt.provider, outcome: attempt.outcome, latency_ms, detail: null, ...endpoint };
  if (attempt.outcome === 'cancelled')
    return {
      provider: attempt.provider,
      outcome: 'cancelled',
      latency_ms,
      detail: attempt.error?.message ?? null,
      ...endpoint,
    };
  const { code, message } = attempt.error!;
  const detail = REFUSALS.has(code) ? `refused: ${message}` : message;
  return { provider: attempt.provider, outcome: S1_CODES[code].attempt, latency_ms, detail, ...endpoint };
}

/** Every path fills the same fields the same way. */
function envelope(
  requestId: string,
  started: number,
  attempts: AttemptDto[],
  { status, ...fields }: Partial<DecideResponseDto> & Pick<DecideResponseDto, 'status'>,
): DecideResponseDto {
  return {
    schema_version: SCHEMA_VERSION,
    request_id: requestId,
    status,
    decision: null,
    confidence: null,
    rationale: null,
    provider: null,
    probabilities: null,
    calibrated: false,
    latency_ms: Math.round(performance.now() - started),
    attempts,
    error: null,
    ...fields,
  };
}
