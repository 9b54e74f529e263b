import { Injectable } from '@nestjs/common';
import { DecisionService } from '../../decisions/decision.service';
import type { ChoiceQuestion } from '../../decisions/question.types';
import { YES_NO_OPTIONS } from '../../common/limits';
import { S1_CODES } from '../../mcp/decide/gateway-error';
import { selfDescribed } from '../../decisions/question-text';
import { BINNING, GroupReport, reportGroup, reportPooled } from '../../calibration/calibration-report';
import { fitTemperature, LabelledAnswer } from '../../calibration/fit';
import { StoredFit } from '../../calibration/fit-store';
import { LabelledExample, LineProblem } from './labelled-data';
import { predict, reliabilityBins } from '../../calibration/metrics';

/** Consecutive failed examples after which the engine is taken to be down and the run stops. */
const STOP_AFTER_FAILURES = 3;
/** Examples in flight at once: engines answer a few requests side by side without queueing much. */
const CONCURRENCY = 4;
/** Fits from fewer answers than this are reported but not written. */
const MIN_WRITE_N = 10;

export interface RunOptions {
  examples: LabelledExample[];
  problems: LineProblem[];
  providerName: string;
  data: string;
  targetAccuracy: number;
  onProgress?: (done: number, total: number) => void;
}

export interface QuestionReport extends GroupReport {
  question: string;
  option_counts: number[];
}

export interface CalibrationReport {
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
  questions: QuestionReport[];
  option_counts: { option_count: number; n: number; temperature: number; at_bound: boolean }[];
  overall: GroupReport | null;
  /** The reliability diagram's data over all answers, each scaled by its question's fit. */
  overall_reliability: { before: ReturnType<typeof reliabilityBins>; after: ReturnType<typeof reliabilityBins> };
  /** The fits a --write or --ship would save, and the ones held back with why. */
  fits: StoredFit[];
  held_back: { question?: string; option_count?: number; reason: string }[];
}

/**
 * `system1 calibrate`: asks the provider every labelled example live (raw probabilities, no threshold,
 * no calibration), fits a temperature per question and per option count, and measures the lot.
 */
@Injectable()
export class CalibrationRunner {
  constructor(private readonly decisions: DecisionService) {}

  async run(options: RunOptions): Promise<CalibrationReport> {
    const { providerName, examples, targetAccuracy } = options;
    const asked = await this.askAll(providerName, examples, options.onProgress);
    const answered = asked.answers;
    const model = this.decisions.resolveCapabilities({ provider: providerName })?.model ?? null;

    const byQuestion = groupBy(answered, (a) => a.example.question);
    const questions: QuestionReport[] = [...byQuestion].map(([question, group]) => ({
      question,
      option_counts: [...new Set(group.map((a) => a.example.options.length))],
      ...reportGroup(group, targetAccuracy),
    }));
    const byCount = groupBy(answered, (a) => a.example.options.length);
    const optionCounts = [...byCount].map(([option_count, group]) => {
      const fit = fitTemperature(group);
      return { option_count, n: group.length, temperature: fit.temperature, at_bound: fit.atBound };
    });
    const overall =
      questions.length === 0
        ? null
        : reportPooled(
            questions.map((q) => ({ answers: byQuestion.get(q.question)!, temperature: q.temperature })),
            targetAccuracy,
          );

    const fitted_at = new Date().toISOString();
    const source = `system1 calibrate ${options.data}`;
    const fits: StoredFit[] = [];
    const held_back: CalibrationReport['held_back'] = [];
    const consider = (fit: StoredFit, label: { question?: string; option_count?: number }) => {
      if (fit.n < MIN_WRITE_N) held_back.push({ ...label, reason: `only ${fit.n} answers (${MIN_WRITE_N} or more to save a fit)` });
      else if (fit.at_bound) held_back.push({ ...label, reason: 'the temperature is at a bound' });
      else fits.push(fit);
    };
    const base = { provider: providerName, model, fitted_at, source };
    for (const q of questions) {
      const metrics = { accuracy: q.accuracy, ece_before: q.ece_before, ece_after: q.ece_after, ece_held_out: q.ece_held_out, auroc: q.auroc };
      consider({ ...base, question: q.question, temperature: q.temperature, n: q.n, at_bound: q.at_bound, metrics }, { question: q.question });
    }
    for (const c of optionCounts) {
      consider({ ...base, option_count: c.option_count, temperature: c.temperature, n: c.n, at_bound: c.at_bound }, { option_count: c.option_count });
    }

    return {
      data: options.data,
      provider: options.providerName,
      model,
      binning: BINNING,
      target_accuracy: targetAccuracy,
      rows: { lines_skipped: options.problems, examples: examples.length, ...asked.counts },
      questions,
      option_counts: optionCounts,
      overall,
      overall_reliability: {
        before: reliabilityBins(answered.map((a) => predict(a))),
        after: reliabilityBins(questions.flatMap((q) => byQuestion.get(q.question)!.map((a) => predict(a, q.temperature)))),
      },
      fits,
      held_back,
    };
  }

  /** Every example asked of `provider` alone through the pipeline, raw (no calibration, no threshold). */
  private async askAll(provider: string, examples: LabelledExample[], onProgress?: (done: number, total: number) => void) {
    type Answered = LabelledAnswer & { example: LabelledExample };
    const answers: Answered[] = [];
    const counts = { answered: 0, abstained: 0, failed: 0, not_asked: 0, without_probabilities: 0, stopped_because: null as string | null };
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
          { calibrate: false, retryBadAnswers: true, minConfidence: 0 },
        );
        onProgress?.(++done, examples.length);
        const answer = outcome.answers.decision;
        if (answer.status === 'error' && answer.error.code === 'abstained') {
          consecutiveFailures = 0;
          counts.abstained += 1;
          continue;
        }
        if (answer.status === 'error') {
          counts.failed += 1;
          consecutiveFailures += 1;
          if (consecutiveFailures >= STOP_AFTER_FAILURES) counts.stopped_because = `${STOP_AFTER_FAILURES} failures in a row, the last: ${S1_CODES[answer.error.code].attempt} (${answer.error.message})`;
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
  return { type: 'choice', instructions: example.question, criteria: selfDescribed(example.yesNo ? YES_NO_OPTIONS : example.options) };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}
