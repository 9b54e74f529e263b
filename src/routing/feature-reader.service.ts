import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionService } from '../decisions/pipeline/decision.service';
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
 * Asks the four routing features about a prompt through the one pipeline, within the hook's time budget and
 * at routing's own threshold: in one engine pass when the provider answers several questions at once.
 */
@Injectable()
export class FeatureReader {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly decisions: DecisionService,
  ) {}

  async read(prompt: string, budgetMs: number, requestId: string): Promise<FeatureReading> {
    const outcome = await this.decisions.decide(
      { state: { prompt }, questions: featureQuestions(), requestId },
      { budgetMs, minConfidence: this.config.routing.min_confidence, retryBadAnswers: true, surface: 'route_hook' },
    );
    if (!outcome.executed) {
      const failures = outcome.attempts.map((a) => `${a.provider}: ${a.error?.code} (${a.error?.message})`);
      return { kind: 'failed', detail: failures.join('; ') || 'no provider could answer in time' };
    }
    let confident = true;
    const features = {} as Record<Feature, FeatureAnswer>;
    for (const [id, result] of Object.entries(outcome.answers) as [Feature, (typeof outcome.answers)[string]][]) {
      // An abstention reads as "no" at no confidence: the rule then stays with its default.
      if (result.status === 'error' || result.answer.type !== 'choice') {
        confident = false;
        features[id] = { answer: false, confidence: 0, calibrated: false };
        continue;
      }
      const { value, confidence, calibrated } = result.answer;
      features[id] = { answer: value === 'yes', confidence, calibrated };
      if (result.belowThreshold) confident = false;
    }
    const batch = this.decisions.resolveCapabilities(outcome.executed)?.batch !== false;
    return {
      kind: 'answered',
      provider: outcome.executed.provider,
      features,
      confident,
      engineCalls: batch ? 1 : Object.keys(features).length,
    };
  }
}
