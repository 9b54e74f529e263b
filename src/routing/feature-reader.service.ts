import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { checkAnswer } from '../decisions/answer-check';
import { runAttempt } from '../decisions/attempt.runner';
import { DecisionBatch, System1Provider } from '../decisions/provider.interface';
import { ProviderRegistry } from '../decisions/provider-registry.service';
import { Feature, featureQuestions } from './routing-features';

export interface FeatureAnswer {
  answer: boolean;
  confidence: number;
  calibrated: boolean;
}

export type FeatureReading =
  | {
      kind: 'answered';
      provider: string;
      features: Record<Feature, FeatureAnswer>;
      /** Every feature at or above `[routing] min_confidence` (none abstained). */
      confident: boolean;
      engineCalls: number;
    }
  | { kind: 'failed'; detail: string };

/**
 * Asks the four routing features about a prompt: in one engine pass when the provider answers several
 * questions at once, else one call per feature in parallel. Falls back along the chain on a failure, all
 * within the caller's time budget; calibrates each answer and applies routing's own threshold.
 */
@Injectable()
export class FeatureReader {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly calibration: CalibrationService,
  ) {}

  async read(prompt: string, budgetMs: number, requestId: string): Promise<FeatureReading> {
    const deadline = performance.now() + budgetMs;
    const questions = featureQuestions();
    const batch: DecisionBatch = { state: { prompt }, questions };
    const failures: string[] = [];
    for (const { name, provider } of this.registry.chain()) {
      const left = deadline - performance.now();
      if (!provider || left <= 0) continue;
      const timeoutMs = Math.min(left, this.config.gateway.timeout_s * 1000);
      const asked = await this.ask(provider, batch, timeoutMs, requestId);
      if (typeof asked === 'string') {
        failures.push(`${name}: ${asked}`);
        continue;
      }
      const threshold = this.config.routing.min_confidence;
      const model = provider.capabilities().model;
      let confident = true;
      const features = {} as Record<Feature, FeatureAnswer>;
      for (const question of questions) {
        const checked = checkAnswer(asked.answers[question.id], question);
        if (checked.kind === 'malformed') {
          failures.push(`${name}: ${question.id}: ${checked.detail}`);
          confident = false;
          break;
        }
        if (checked.kind === 'abstain') {
          confident = false;
          features[question.id as Feature] = { answer: false, confidence: 0, calibrated: false };
          continue;
        }
        const scaled = this.calibration.apply(provider.name, model, question, checked);
        features[question.id as Feature] = { answer: checked.decision === 'yes', confidence: scaled.confidence, calibrated: scaled.calibrated };
        if (scaled.confidence < threshold) confident = false;
      }
      if (Object.keys(features).length === questions.length) {
        return { kind: 'answered', provider: name, features, confident, engineCalls: asked.calls };
      }
    }
    return { kind: 'failed', detail: failures.join('; ') || 'no provider could answer in time' };
  }

  private async ask(provider: System1Provider, batch: DecisionBatch, timeoutMs: number, requestId: string) {
    if (provider.capabilities().batch) {
      const result = await runAttempt(provider, batch, timeoutMs, requestId);
      return result.ok ? { answers: result.answers, calls: 1 } : `${result.failure} (${result.detail})`;
    }
    const results = await Promise.all(
      batch.questions.map((question) => runAttempt(provider, { state: batch.state, questions: [question] }, timeoutMs, requestId)),
    );
    const failed = results.find((result) => !result.ok);
    if (failed && !failed.ok) return `${failed.failure} (${failed.detail})`;
    return { answers: Object.assign({}, ...results.map((result) => (result.ok ? result.answers : {}))) as Record<string, unknown>, calls: results.length };
  }
}
