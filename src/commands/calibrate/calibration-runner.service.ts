import { Injectable } from '@nestjs/common';
import { DecisionService } from '../../decisions/pipeline/decision.service';
import { DecisionErrorCode } from '../../decisions/errors/decision-error';
import type { ChoiceQuestion } from '../../decisions/questions/question.types';
import { YES_NO_OPTIONS } from '../../common/limits';
import { S1_CODES } from '../../mcp/decide/gateway-error';
import { selfDescribed } from '../../decisions/pipeline/question-text';
import { BINNING } from '../../calibration/calibration-report';
import { CalibrationFigures, calibrationFigures, FitsInPlace } from '../../calibration/calibration-figures';
import { LabelledAnswer } from '../../calibration/fit';
import { LabelledExample, LineProblem } from './labelled-data';

/** Consecutive failed examples after which the engine is taken to be down and the run stops. */
const STOP_AFTER_FAILURES = 3;
/** Examples in flight at once: engines answer a few requests side by side without queueing much. */
const CONCURRENCY = 4;

export interface CalibrationRunOptions {
  examples: LabelledExample[];
  problems: LineProblem[];
  providerName: string;
  data: string;
  targetAccuracy: number;
  /** The chance the threshold with a guarantee may fail it (the default risk when absent). */
  risk?: number;
  onProgress?: (done: number, total: number) => void;
  /** The fits already on this machine, which decisions will also see (none when absent). */
  inPlace?: FitsInPlace;
}

export interface CalibrationReport extends CalibrationFigures {
  data: string;
  provider: string;
  model: string | null;
  binning: string;
  target_accuracy: number;
  rows: {
    lines_skipped: LineProblem[];
    examples: number;
    answered: number;
    abstained: number;
    failed: number;
    not_asked: number;
    without_probabilities: number;
    stopped_because: string | null;
  };
}

/**
 * `system1 calibrate`: asks the provider every labelled example live (raw probabilities, no threshold,
 * no calibration), then fits and measures (calibration-figures.ts).
 */
@Injectable()
export class CalibrationRunner {
  constructor(private readonly decisions: DecisionService) {}

  async run(options: CalibrationRunOptions): Promise<CalibrationReport> {
    const { providerName, examples, targetAccuracy } = options;
    const asked = await this.askAll(providerName, examples, options.onProgress);
    const answered = asked.answers;
    const model = this.decisions.resolveCapabilities({ provider: providerName })?.model ?? null;

    const figures = calibrationFigures(
      answered.map(({ example, label, probabilities }) => ({
        question: example.question,
        optionCount: example.options.length,
        label,
        probabilities,
      })),
      {
        provider: providerName,
        model,
        targetAccuracy,
        risk: options.risk,
        source: `system1 calibrate ${options.data}`,
        fittedAt: new Date().toISOString(),
        inPlace: options.inPlace,
      },
    );
    return {
      data: options.data,
      provider: options.providerName,
      model,
      binning: BINNING,
      target_accuracy: targetAccuracy,
      rows: { lines_skipped: options.problems, examples: examples.length, ...asked.counts },
      ...figures,
    };
  }

  /** Every example asked of `provider` alone through the pipeline, raw (no calibration, no threshold). */
  private async askAll(
    provider: string,
    examples: LabelledExample[],
    onProgress?: (done: number, total: number) => void,
  ) {
    type Answered = LabelledAnswer & { example: LabelledExample };
    const answers: Answered[] = [];
    const counts = {
      answered: 0,
      abstained: 0,
      failed: 0,
      not_asked: 0,
      without_probabilities: 0,
      stopped_because: null as string | null,
    };
    let consecutiveFailures = 0;
    let next = 0;
    let done = 0;

    const worker = async () => {
      while (next < examples.length && counts.stopped_because === null) {
        const example = examples[next++];
        const outcome = await this.decisions.decide(
          {
            ...(example.context !== undefined && { state: example.context }),
            questions: { decision: choiceOf(example) },
            model: { provider },
            requestId: `calibrate-${example.line}`,
          },
          { calibrate: false, cache: false, retryBadAnswers: true, minConfidence: 0, surface: 'calibrate' },
        );
        onProgress?.(++done, examples.length);
        const answer = outcome.answers.decision;
        if (answer.status === 'error' && answer.error.code === DecisionErrorCode.Abstained) {
          consecutiveFailures = 0;
          counts.abstained += 1;
          continue;
        }
        if (answer.status === 'error') {
          counts.failed += 1;
          consecutiveFailures += 1;
          if (consecutiveFailures >= STOP_AFTER_FAILURES)
            counts.stopped_because =
              `${STOP_AFTER_FAILURES} failures in a row, the last: ` +
              `${S1_CODES[answer.error.code].attempt} (${answer.error.message})`;
          continue;
        }
        consecutiveFailures = 0;
        if (answer.approximate || answer.answer.type !== 'choice') {
          counts.without_probabilities += 1;
          continue;
        }
        const { probabilities } = answer.answer;
        const raw = example.options.map((option) => (Object.hasOwn(probabilities, option) ? probabilities[option] : 0));
        const total = raw.reduce((sum, p) => sum + p, 0);
        if (total <= 0) {
          counts.without_probabilities += 1;
          continue;
        }
        counts.answered += 1;
        answers.push({ example, label: example.label, probabilities: raw.map((p) => p / total) });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    counts.not_asked = examples.length - done;
    // Answers arrive out of order with several in flight; keep the file's order for stable reports.
    answers.sort((a, b) => a.example.line - b.example.line);
    return { answers, counts };
  }
}

/** The example's options as candidates that stand for themselves (yes and no when it has none). */
function choiceOf(example: LabelledExample): ChoiceQuestion {
  return {
    type: 'choice',
    instructions: example.question,
    criteria: selfDescribed(example.yesNo ? YES_NO_OPTIONS : example.options),
  };
}
