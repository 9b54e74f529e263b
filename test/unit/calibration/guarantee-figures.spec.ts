/**
 * `calibrate`'s threshold with a guarantee is taken on the confidences decisions will see, held out: each
 * answer scaled by the fits the gateway would apply, made without it. The held-out confidences are computed
 * here apart from the product (test/helpers/independent-calibration.ts: scikit-learn's StratifiedKFold
 * allocation with the same seeded generator, maximum-likelihood temperatures by another search).
 */
import { calibrationFigures, type CalibrationRow } from '../../../src/calibration/calibration-figures';
import { guaranteedThreshold } from '../../../src/calibration/guaranteed-threshold';
import { seededRandom } from '../../../src/calibration/random';
import { argmax, heldOutChoices, scaled } from '../../helpers/independent-calibration';
import { syntheticEngine } from '../../helpers/synthetic-engine';

/** The product's documented floor on probabilities before the log. */
const FLOOR = 5e-5;
const FIGURES = { provider: 'laya', model: 'typed-decisions', source: 'test', fittedAt: '2026-01-01T00:00:00Z' };

function rowsOf(n: number, distortion: number, seed: number, question = 'Which option is right?'): CalibrationRow[] {
  const { probabilities, labels } = syntheticEngine(n, distortion, seed);
  return probabilities.map((p, i) => ({ question, optionCount: 3, probabilities: p, label: labels[i] }));
}

/** Each row scaled by the temperature fitted on the other four folds, as a confidence and a verdict. */
const independentHeldOut = (rows: readonly CalibrationRow[]) =>
  heldOutChoices(
    rows.map((row) => row.probabilities),
    rows.map((row) => row.label),
    seededRandom(13),
    5,
    FLOOR,
  );

it('an over-confident engine at n = 400: the threshold of the held-out confidences, recommended as min_confidence', () => {
  const rows = rowsOf(400, 3, 21);
  const figures = calibrationFigures(rows, { ...FIGURES, targetAccuracy: 0.8, risk: 0.05 });
  const heldOut = independentHeldOut(rows);
  const expected = guaranteedThreshold(
    heldOut.map((p) => p.confidence),
    heldOut.map((p) => p.correct),
    { targetAccuracy: 0.8, risk: 0.05 },
  );
  expect(expected).not.toBeNull();
  expect(figures.guaranteed_threshold).toMatchObject({
    threshold: expected!.threshold,
    n: expected!.n,
    errors: expected!.errors,
    target_accuracy: 0.8,
    risk: 0.05,
  });
  expect(figures.answers_needed).toBeNull();
  expect(figures.recommended_min_confidence).toBe(expected!.threshold);
  // The engine's raw confidences would vouch for a lower, broken threshold: over-confident, they clear more.
  const raw = rows.map((row) => ({
    confidence: Math.max(...row.probabilities),
    correct: argmax(row.probabilities) === row.label,
  }));
  const onRaw = guaranteedThreshold(
    raw.map((p) => p.confidence),
    raw.map((p) => p.correct),
    { targetAccuracy: 0.8, risk: 0.05 },
  );
  expect(onRaw?.threshold).not.toBe(expected!.threshold);
  // One question: its own guarantee is the overall one.
  expect(figures.questions[0].guaranteed_threshold).toEqual(figures.guaranteed_threshold);
});

it('a fit already in place scales the confidences the guarantee is taken on', () => {
  // 36 answers: a fold trains on under 30, so no fold fit is trusted and the fit in place scales every answer.
  const rows = rowsOf(36, 1, 5);
  const inPlaceFit = {
    provider: 'laya',
    model: 'typed-decisions',
    option_count: 3,
    temperature: 0.5,
    n: 500,
    at_bound: false,
    trusted: true,
    fitted_at: '2025-01-01T00:00:00Z',
    source: 'earlier',
  };
  const figures = calibrationFigures(rows, {
    ...FIGURES,
    targetAccuracy: 0.5,
    risk: 0.1,
    inPlace: { user: [inPlaceFit], shipped: [], saveInto: 'user' },
  });
  const sharpened = rows.map((row) => scaled(row.probabilities, 0.5, FLOOR));
  const expected = guaranteedThreshold(
    sharpened.map((p) => p[argmax(p)]),
    sharpened.map((p, i) => argmax(p) === rows[i].label),
    { targetAccuracy: 0.5, risk: 0.1 },
  );
  expect(expected).not.toBeNull();
  expect(figures.guaranteed_threshold).toMatchObject({ threshold: expected!.threshold, n: expected!.n, risk: 0.1 });
});

it('too few answers for held-out folds: no threshold, and how many more are needed at the observed rates', () => {
  const row = (label: number): CalibrationRow => ({
    question: 'q',
    optionCount: 2,
    probabilities: [0.95, 0.05],
    label,
  });
  // Six right at 0.95: 0.8^14 is the first power under 0.05, so 8 more at no error; the folds need only 4.
  const figures = calibrationFigures(
    Array.from({ length: 6 }, () => row(0)),
    { ...FIGURES, targetAccuracy: 0.8 },
  );
  expect(figures).toMatchObject({
    guaranteed_threshold: null,
    recommended_min_confidence: null,
    risk: 0.05,
    answers_needed: 8,
  });
  // Half wrong: no number of answers at these rates would do.
  const halfWrong = calibrationFigures([0, 1, 0, 1, 0, 1].map(row), { ...FIGURES, targetAccuracy: 0.8 });
  expect(halfWrong.answers_needed).toBeNull();
});

it('per question: each question on its own held-out answers', () => {
  const rows = [...rowsOf(300, 1, 8, 'Question A?'), ...rowsOf(20, 1, 9, 'Question B?')];
  const figures = calibrationFigures(rows, { ...FIGURES, targetAccuracy: 0.7 });
  const [a, b] = figures.questions;
  expect(a.question).toBe('Question A?');
  expect(a.guaranteed_threshold?.n).toBeLessThanOrEqual(300);
  expect(a.guaranteed_threshold?.coverage).toBe(a.guaranteed_threshold!.n / 300);
  // 20 answers: 0.7^20 is under 0.05, so the rule may test; whichever it says, it says it for B's answers alone.
  if (b.guaranteed_threshold) expect(b.guaranteed_threshold.n).toBeLessThanOrEqual(20);
  else expect(b.answers_needed === null || b.answers_needed > 0).toBe(true);
});
