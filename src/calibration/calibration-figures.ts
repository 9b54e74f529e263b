import { type GroupReport, reportApplied, reportGroup } from './calibration-report';
import { fitChooser, isTrusted, MIN_TRUSTED_N } from './fit-choice';
import { fitTemperature, type LabelledAnswer } from './fit';
import { mergeFits, type StoredFit } from './fit-store';
import {
  crossValidated,
  minimumForFolds,
  type Prediction,
  reliabilityBins,
  scorePrediction,
} from './calibration-metrics';
import { DEFAULT_RISK, thresholdGuarantee, type ThresholdGuarantee } from './guaranteed-threshold';

/** One labelled answer with what picks its fit: the question asked and how many options it had. */
export interface CalibrationRow extends LabelledAnswer {
  question: string;
  optionCount: number;
}

/** A fit already on this machine, with the file it came from. */
export type FitInPlace = StoredFit & { file?: string };

/** The fits a decision would see besides this run's: the user's file first, then the shipped one. */
export interface FitsInPlace {
  user: FitInPlace[];
  shipped: FitInPlace[];
  /** Where this run's fits would go: `--write` (the user's file) or `--ship`. */
  saveInto: 'user' | 'shipped';
}

export interface FigureOptions {
  provider: string;
  model: string | null;
  targetAccuracy: number;
  /** The chance the threshold with a guarantee may fail it (DEFAULT_RISK when absent). */
  risk?: number;
  /** Words for the `source` of the fits this run makes. */
  source: string;
  fittedAt: string;
  inPlace?: FitsInPlace;
}

export interface QuestionReport extends GroupReport, ThresholdGuarantee {
  question: string;
  option_counts: number[];
}

export interface OptionCountReport extends GroupReport {
  option_count: number;
}

/** A fit the overall figures applied, and to how many answers. */
export interface AppliedFit {
  question?: string;
  option_count?: number;
  temperature: number;
  n: number;
  /** "this run", or the file it was read from. */
  from: string;
  answers: number;
}

export interface CalibrationFigures {
  questions: QuestionReport[];
  option_counts: OptionCountReport[];
  /**
   * Every answer scaled by the fit a decision would apply after saving this run's fits (fitChooser: its
   * question's trusted fit, else its option count's, else none): the figures a user can act on.
   */
  overall: GroupReport | null;
  overall_fits: { by_question: number; by_option_count: number; none: number; fits: AppliedFit[] };
  overall_reliability: { before: ReturnType<typeof reliabilityBins>; after: ReturnType<typeof reliabilityBins> };
  /** The fits a --write or --ship would save (only trusted ones), and the ones held back with why. */
  fits: StoredFit[];
  held_back: { question?: string; option_count?: number; reason: string }[];
  risk: number;
  /**
   * The threshold with a guarantee (guaranteed-threshold.ts) on the overall held-out answers: each scaled by
   * the fits the gateway would apply, made without it, so the answers that chose the fits do not vouch for it.
   */
  guaranteed_threshold: ThresholdGuarantee['guaranteed_threshold'];
  answers_needed: ThresholdGuarantee['answers_needed'];
  /** The `min_confidence` to set: the threshold with a guarantee (null when none qualifies). */
  recommended_min_confidence: number | null;
}

const NOTHING_IN_PLACE: FitsInPlace = { user: [], shipped: [], saveInto: 'user' };

/**
 * Fits one temperature per question and per option count on labelled answers, reports each, and measures
 * the lot as decisions will see it: each answer scaled by the fit the gateway would apply to it.
 */
export function calibrationFigures(rows: readonly CalibrationRow[], options: FigureOptions): CalibrationFigures {
  const { provider, model, targetAccuracy } = options;
  const inPlace = options.inPlace ?? NOTHING_IN_PLACE;
  const byQuestion = groupBy(rows, (row) => row.question);
  const byCount = groupBy(rows, (row) => row.optionCount);
  const risk = options.risk ?? DEFAULT_RISK;
  const guaranteeOptions = { targetAccuracy, risk };
  const questions: QuestionReport[] = [...byQuestion].map(([question, group]) => ({
    question,
    option_counts: [...new Set(group.map((row) => row.optionCount))],
    ...reportGroup(group, targetAccuracy),
    guaranteed_threshold: null,
    answers_needed: null,
  }));
  const optionCounts: OptionCountReport[] = [...byCount].map(([option_count, group]) => ({
    option_count,
    ...reportGroup(group, targetAccuracy),
  }));

  const made = { provider, model, fitted_at: options.fittedAt, source: options.source };
  const candidates = [
    ...questions.map((q) => ({ fit: storedFit(made, { question: q.question }, q), report: q })),
    ...optionCounts.map((c) => ({ fit: storedFit(made, { option_count: c.option_count }, c), report: c })),
  ];
  const fits = candidates.filter(({ fit }) => isTrusted(fit)).map(({ fit }) => fit);
  const held_back = candidates
    .filter(({ fit }) => !isTrusted(fit))
    .map(({ fit, report }) => ({ ...keyOf(fit), reason: report.warnings.join('; ') }));

  if (rows.length === 0) {
    const empty = reliabilityBins([]);
    return {
      questions,
      option_counts: optionCounts,
      overall: null,
      overall_fits: { by_question: 0, by_option_count: 0, none: 0, fits: [] },
      overall_reliability: { before: empty, after: empty },
      fits,
      held_back,
      risk,
      guaranteed_threshold: null,
      answers_needed: null,
      recommended_min_confidence: null,
    };
  }

  const decisionFit = fitChooser(afterSaving(inPlace, fits));
  const chosen = rows.map((row) =>
    decisionFit({ provider, model, question: row.question, optionCount: row.optionCount }),
  );
  const applied = rows.map((answer, i) => ({ answer, temperature: chosen[i]?.temperature ?? 1 }));
  const heldOut = crossValidated(rows, foldStratum(byQuestion), (train, test) => {
    // Saved as the run saves: trusted fits only, so an untrusted one never displaces a fit in place.
    const foldFit = fitChooser(afterSaving(inPlace, unjudgedFits(train, made).filter(isTrusted)));
    return test.map((row) =>
      scorePrediction(
        row,
        foldFit({ provider, model, question: row.question, optionCount: row.optionCount })?.temperature ?? 1,
      ),
    );
  });
  const seen = applied.map(({ answer, temperature }) => scorePrediction(answer, temperature));
  const guarantee = guaranteeOn(heldOut, seen, guaranteeOptions);
  for (const question of questions) {
    const own = (predictions: Prediction[] | null) =>
      predictions && predictions.filter((_, i) => rows[i].question === question.question);
    Object.assign(question, guaranteeOn(own(heldOut), own(seen)!, guaranteeOptions));
  }
  return {
    questions,
    option_counts: optionCounts,
    overall: reportApplied(applied, heldOut, targetAccuracy),
    overall_fits: appliedSummary(chosen),
    overall_reliability: {
      before: reliabilityBins(rows.map((row) => scorePrediction(row))),
      after: reliabilityBins(seen),
    },
    fits,
    held_back,
    risk,
    ...guarantee,
    recommended_min_confidence: guarantee.guaranteed_threshold?.threshold ?? null,
  };
}

/**
 * The threshold with a guarantee on held-out answers; with too few for held-out answers (none), only how many
 * more are needed, from the answers as decisions see them: at least enough for the folds.
 */
function guaranteeOn(
  heldOut: readonly Prediction[] | null,
  seen: readonly Prediction[],
  options: { targetAccuracy: number; risk: number },
): ThresholdGuarantee {
  const confidences = (predictions: readonly Prediction[]) => predictions.map((p) => p.confidence);
  const correct = (predictions: readonly Prediction[]) => predictions.map((p) => p.correct);
  if (heldOut) return thresholdGuarantee(confidences(heldOut), correct(heldOut), options);
  const forTheFolds = minimumForFolds() - seen.length;
  const inSample = thresholdGuarantee(confidences(seen), correct(seen), options);
  if (inSample.guaranteed_threshold) return { guaranteed_threshold: null, answers_needed: forTheFolds };
  const needed = inSample.answers_needed;
  return { guaranteed_threshold: null, answers_needed: needed === null ? null : Math.max(needed, forTheFolds) };
}

/**
 * The stratum a row's fold keeps the shares of: its label within its question when the question has
 * answers enough to be fitted in a fold, else within its option count (whose fit it would take).
 */
function foldStratum(byQuestion: Map<string, CalibrationRow[]>): (row: CalibrationRow) => string {
  return (row) =>
    JSON.stringify([
      (byQuestion.get(row.question)?.length ?? 0) >= MIN_TRUSTED_N ? row.question : row.optionCount,
      row.label,
    ]);
}

/** The fits a decision sees once `fits` are saved where this run would save them, in precedence order. */
function afterSaving(inPlace: FitsInPlace, fits: FitInPlace[]): FitInPlace[] {
  return inPlace.saveInto === 'user'
    ? [...mergeFits(inPlace.user, fits), ...inPlace.shipped]
    : [...inPlace.user, ...mergeFits(inPlace.shipped, fits)];
}

function storedFit(
  made: Pick<StoredFit, 'provider' | 'model' | 'fitted_at' | 'source'>,
  key: Pick<StoredFit, 'question' | 'option_count'>,
  report: GroupReport,
): StoredFit {
  return {
    ...made,
    ...key,
    temperature: report.temperature,
    n: report.n,
    at_bound: report.at_bound,
    trusted: report.trusted,
    metrics: {
      accuracy: report.accuracy,
      ece_before: report.ece_before,
      ece_after: report.ece_after,
      ece_held_out: report.ece_held_out,
      auroc: report.auroc,
    },
  };
}

/**
 * A fold's fits, per question and per option count, without a run's verdict (there is no held-out check
 * inside a fold): the rule then goes by their n and bounds alone.
 */
function unjudgedFits(
  train: readonly CalibrationRow[],
  made: Pick<StoredFit, 'provider' | 'model' | 'fitted_at' | 'source'>,
): StoredFit[] {
  const fitOf = (group: CalibrationRow[]) => {
    const { temperature, atBound } = fitTemperature(group);
    return { temperature, at_bound: atBound, n: group.length };
  };
  return [
    ...[...groupBy(train, (row) => row.question)].map(([question, group]) => ({ ...made, question, ...fitOf(group) })),
    ...[...groupBy(train, (row) => row.optionCount)].map(([option_count, group]) => ({
      ...made,
      option_count,
      ...fitOf(group),
    })),
  ];
}

function appliedSummary(chosen: readonly (FitInPlace | undefined)[]): CalibrationFigures['overall_fits'] {
  const uses = new Map<FitInPlace, number>();
  for (const fit of chosen) if (fit) uses.set(fit, (uses.get(fit) ?? 0) + 1);
  const fits: AppliedFit[] = [...uses].map(([fit, answers]) => ({
    ...keyOf(fit),
    temperature: fit.temperature,
    n: fit.n,
    from: fit.file ?? 'this run',
    answers,
  }));
  return {
    by_question: fits.filter((fit) => fit.question !== undefined).reduce((sum, fit) => sum + fit.answers, 0),
    by_option_count: fits.filter((fit) => fit.question === undefined).reduce((sum, fit) => sum + fit.answers, 0),
    none: chosen.filter((fit) => !fit).length,
    fits,
  };
}

/** What a fit is for: one question, or every question with its number of options. */
function keyOf(fit: Pick<StoredFit, 'question' | 'option_count'>): { question?: string; option_count?: number } {
  return fit.question !== undefined ? { question: fit.question } : { option_count: fit.option_count };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
