import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Calibrated, CalibrationService } from '../../calibration/calibration.service';
import type { LoadedConfig } from '../../config/config.loader';
import { system1Config } from '../../config/system1.config';
import { DecisionBatch, DecisionQuestion } from '../../decisions/provider.interface';
import { ChainMember, ProviderRegistry } from '../../decisions/provider-registry.service';
import type { CheckedAnswer } from '../../decisions/answer-check';
import { askQuestion, AttemptFailure } from '../../decisions/attempt.runner';
import { ConfigStatus } from '../../decisions/config-status.service';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { AttemptDto, DecideResponseDto } from '../dto/decide-response.dto';
import { SCHEMA_VERSION, YES_NO_OPTIONS } from '../../common/limits';
import { GatewayErrorCode } from './gateway-error';
import { PauseState } from '../../decisions/pause-state.service';
import { checkDecideRequest, requestIdOf } from './request-validation';

const FAILURE_CODES: Record<AttemptFailure, GatewayErrorCode> = {
  timeout: GatewayErrorCode.ProviderTimeout,
  error: GatewayErrorCode.ProviderError,
  malformed: GatewayErrorCode.MalformedResponse,
};

/** The one place that decides outcomes: validation, config, pause, the fallback chain and the threshold. */
@Injectable()
export class GatewayService {
  private readonly logger = new Logger('Gateway');

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
    private readonly calibration: CalibrationService,
  ) {}

  async decide(raw: unknown): Promise<DecideResponseDto> {
    const started = performance.now();
    const requestId = requestIdOf(raw, randomUUID);
    const reply = new ReplyBuilder(requestId, started);

    const check = checkDecideRequest(raw);
    if (!check.ok) {
      this.logger.warn(`[${requestId}] ${check.message}`);
      return reply.error(GatewayErrorCode.InvalidRequest, check.message);
    }
    const request = check.request;
    const question = toQuestion(request);
    this.logger.debug(`[${requestId}] question: ${JSON.stringify(request.question)}`);

    const configErrors = this.configStatus.errors();
    if (configErrors.length > 0) {
      const message = `the configuration is broken: ${configErrors.map((e) => e.message).join('; ')}`;
      this.logger.error(`[${requestId}] ${message}`);
      return reply.error(GatewayErrorCode.ConfigError, message);
    }
    if (this.pause.isPaused()) {
      this.logger.log(`[${requestId}] abstained: System-1 is paused`);
      return reply.abstained({ rationale: 'System-1 is paused (system1 toggle on resumes it); reason it through yourself' });
    }

    const chain = this.registry.chain();
    const tooMany = (member: ChainMember) => question.options.length > (member.provider?.capabilities().max_options ?? Infinity);
    if (chain.every(tooMany)) {
      const limits = chain.map((m) => `${m.name}: ${m.provider?.capabilities().max_options}`).join(', ');
      const message = `invalid request: options has ${question.options.length} items, more than any provider accepts (${limits})`;
      this.logger.warn(`[${requestId}] ${message}`);
      return reply.error(GatewayErrorCode.InvalidRequest, message);
    }

    const batch: DecisionBatch = { state: request.context, questions: [question] };
    const threshold = request.min_confidence ?? this.config.gateway.min_confidence;
    let lastFailure: AttemptFailure = 'error';
    for (const member of chain) {
      const provider = member.provider!; // a null provider is a config error, answered above
      if (tooMany(member)) {
        const limit = provider.capabilities().max_options;
        reply.attempt(member.name, 'error', 0, `refused: ${question.options.length} options, ${member.name} accepts at most ${limit}`);
        lastFailure = 'error';
        continue;
      }
      const answer = await askQuestion(provider, batch, question, this.config.gateway.timeout_s * 1000, requestId);
      if (answer.kind === 'failed') {
        lastFailure = answer.failure;
        reply.attempt(member.name, answer.failure, answer.latencyMs, answer.detail);
        this.logger.warn(`[${requestId}] ${member.name} ${answer.failure}: ${answer.detail}`);
        continue;
      }
      if (answer.kind === 'abstain') {
        reply.attempt(member.name, 'abstained', answer.latencyMs, answer.rationale);
        this.logger.log(`[${requestId}] ${member.name} abstained`);
        return reply.abstained({ provider: member.name, rationale: answer.rationale });
      }
      reply.attempt(member.name, 'ok', answer.latencyMs, null);
      const scaled = this.calibration.apply(provider.name, provider.capabilities().model, question, answer);
      if (scaled.confidence < threshold) {
        this.logger.log(`[${requestId}] abstained: ${member.name} confidence ${scaled.confidence} < ${threshold}`);
        return reply.abstained({
          provider: member.name,
          confidence: scaled.confidence,
          probabilities: scaled.probabilities,
          calibrated: scaled.calibrated,
          rationale: `confidence ${scaled.confidence} is below the threshold ${threshold}${answer.rationale ? `; ${answer.rationale}` : ''}`,
        });
      }
      this.logger.log(`[${requestId}] decided by ${member.name} with confidence ${scaled.confidence}${scaled.calibrated ? ' (calibrated)' : ''}`);
      return reply.decided(member.name, { ...answer, ...scaled });
    }
    const message = `every provider failed: ${reply.failures()}`;
    this.logger.error(`[${requestId}] ${message}`);
    return reply.error(FAILURE_CODES[lastFailure], message);
  }
}

function toQuestion(request: DecideRequestDto): DecisionQuestion {
  const yesNo = request.options === undefined;
  return { id: 'decision', text: request.question, options: yesNo ? [...YES_NO_OPTIONS] : request.options!, yesNo };
}

/** Builds the response envelope; every path fills the same fields the same way. */
class ReplyBuilder {
  private readonly attempts: AttemptDto[] = [];

  constructor(
    private readonly requestId: string,
    private readonly started: number,
  ) {}

  attempt(provider: string, outcome: AttemptDto['outcome'], latencyMs: number, detail: string | null): void {
    this.attempts.push({ provider, outcome, latency_ms: Math.round(latencyMs), detail });
  }

  failures(): string {
    return this.attempts.map((a) => `${a.provider} ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`).join('; ');
  }

  decided(provider: string, answer: Extract<CheckedAnswer, { kind: 'decision' }> & Calibrated): DecideResponseDto {
    return this.build({
      status: 'decided',
      decision: answer.decision,
      confidence: answer.confidence,
      probabilities: answer.probabilities,
      calibrated: answer.calibrated,
      rationale: answer.rationale,
      provider,
    });
  }

  abstained(
    fields: Partial<Pick<DecideResponseDto, 'provider' | 'confidence' | 'probabilities' | 'calibrated' | 'rationale'>>,
  ): DecideResponseDto {
    return this.build({ status: 'abstained', ...fields });
  }

  error(code: GatewayErrorCode, message: string): DecideResponseDto {
    return this.build({ status: 'error', error: { code, message } });
  }

  private build({ status, ...fields }: Partial<DecideResponseDto> & Pick<DecideResponseDto, 'status'>): DecideResponseDto {
    return {
      schema_version: SCHEMA_VERSION,
      request_id: this.requestId,
      status,
      decision: null,
      confidence: null,
      rationale: null,
      provider: null,
      probabilities: null,
      calibrated: false,
      latency_ms: Math.round(performance.now() - this.started),
      attempts: this.attempts,
      error: null,
      ...fields,
    };
  }
}
