/**
 * The calibration maths against figures computed independently with numpy/scipy:
 * test/fixtures/calibration-vectors.json is a copy of ../shared/reference/calibration-vectors.json (its
 * `about` states the conventions, its `tolerance` how close is close). Every figure `calibrate` reports is
 * checked for every case. One convention differs on purpose: the reference clips probabilities at 1e-12
 * before the log, the product floors them at PROBABILITY_FLOOR = 5e-5 (an engine's rounded 0 means "below
 * 0.00005"). Where an engine row holds a probability under the floor, the file's own
 * `temperature_with_floor_5e-5` is the fit to match, and the figures after calibration are checked under
 * each convention separately (see "the floor" below).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { reportGroup } from '../../../src/calibration/calibration-report';
import { type LabelledAnswer } from '../../../src/calibration/fit';
import {
  accuracy,
  auroc,
  brierScore,
  expectedCalibrationError,
  meanLogLoss,
  type ScoredPrediction,
} from '../../../src/calibration/calibration-metrics';
import { PROBABILITY_FLOOR, scaleProbabilities } from '../../../src/calibration/temperature';
import { scaled } from '../../helpers/independent-calibration';
import { itUnless } from '../../helpers/skip-unless';

interface Expected {
  temperature: number;
  'temperature_with_floor_5e-5': number;
  accuracy: number;
  ece_before: number;
  ece_after: number;
  auroc_before: number | null;
  auroc_after: number | null;
  log_loss_before: number;
  log_loss_after: number;
  brier_before: number;
  brier_after: number;
  first_row_after: number[];
}
interface Case {
  name: string;
  probabilities: number[][];
  labels: number[];
  expected: Expected;
}
interface Vectors {
  about: string;
  tolerance: { temperature_relative: number; other_absolute: number };
  cases: Case[];
}

const FIXTURE = path.join(__dirname, '../../fixtures/calibration-vectors.json');
const ORIGIN = path.join(__dirname, '../../../../shared/reference/calibration-vectors.json');
const vectors = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Vectors;
const { temperature_relative: relative, other_absolute: absolute } = vectors.tolerance;

/** A prediction from given probabilities: argmax (first on ties), its probability, the Brier term. */
function scored(p: readonly number[], label: number): ScoredPrediction {
  const best = p.reduce((b, x, i) => (x > p[b] ? i : b), 0);
  return {
    confidence: p[best],
    correct: best === label,
    labelProbability: p[label],
    squaredError: p.reduce((s, x, k) => s + (x - (k === label ? 1 : 0)) ** 2, 0),
  };
}

const metricsOf = (predictions: ScoredPrediction[]) => ({
  accuracy: accuracy(predictions),
  ece: expectedCalibrationError(predictions),
  auroc: auroc(predictions),
  log_loss: meanLogLoss(predictions),
  brier: brierScore(predictions),
});

const answersOf = (c: Case): LabelledAnswer[] =>
  c.probabilities.map((probabilities, i) => ({ probabilities, label: c.labels[i] }));
/**
 * Whether the two floors give different fits on this case (the file's two temperatures differ beyond the
 * tolerance): then the figures after calibration differ too, and are checked under each convention.
 */
const conventionsDiffer = (c: Case) =>
  Math.abs(c.expected.temperature / c.expected['temperature_with_floor_5e-5'] - 1) > relative;
const close = (actual: number | null, expected: number | null, tolerance = absolute) => {
  if (expected === null) expect(actual).toBeNull();
  else expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(tolerance);
};

itUnless(existsSync(ORIGIN) ? undefined : '../shared/reference/calibration-vectors.json is not beside the clone')(
  'the fixture is the reference file, unchanged',
  () => {
    expect(readFileSync(FIXTURE, 'utf8')).toBe(readFileSync(ORIGIN, 'utf8'));
  },
);

it('states the conventions the product follows', () => {
  expect(vectors.about).toMatch(/ECE: 10 equal-width bins, bin = min\(floor\(conf \* 10\), 9\)/);
  expect(vectors.about).toMatch(/ties count 1\/2/);
  expect(vectors.cases).toHaveLength(6);
});

describe.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const report = reportGroup(answersOf(c), 0.8);
  const e = c.expected;

  it('fits the temperature: the floored fit always, the clipped one too when the conventions agree', () => {
    expect(Math.abs(report.temperature / e['temperature_with_floor_5e-5'] - 1)).toBeLessThanOrEqual(relative);
    if (!conventionsDiffer(c)) expect(Math.abs(report.temperature / e.temperature - 1)).toBeLessThanOrEqual(relative);
    expect(report.at_bound).toBe(false);
  });

  it('reports every figure before calibration: accuracy, ECE, AUROC, log loss, Brier', () => {
    close(report.accuracy, e.accuracy);
    close(report.ece_before, e.ece_before);
    close(report.auroc, e.auroc_before);
    close(report.log_loss_before, e.log_loss_before);
    close(report.brier_before, e.brier_before);
  });

  it('scales the first row as the reference does (under the same floor)', () => {
    const mine = scaleProbabilities(c.probabilities[0], e.temperature);
    const floored = c.probabilities[0].some((p) => p < PROBABILITY_FLOOR);
    const reference = floored ? scaled(c.probabilities[0], e.temperature, PROBABILITY_FLOOR) : e.first_row_after;
    mine.forEach((p, k) => close(p, reference[k]));
    // The test's own softmax reproduces the reference's row, so the two conventions are the only difference.
    scaled(c.probabilities[0], e.temperature, 1e-12).forEach((p, k) => close(p, e.first_row_after[k]));
  });

  it("the metric functions give the reference's figures after calibration on the reference's own scaled rows", () => {
    const after = metricsOf(c.probabilities.map((p, i) => scored(scaled(p, e.temperature, 1e-12), c.labels[i])));
    close(after.ece, e.ece_after);
    close(after.auroc, e.auroc_after);
    close(after.log_loss, e.log_loss_after);
    close(after.brier, e.brier_after);
    close(after.accuracy, e.accuracy); // a temperature never changes which option wins
  });

  if (!conventionsDiffer(c)) {
    it('reports the same figures after calibration (the floor changes nothing that shows here)', () => {
      close(report.ece_after, e.ece_after);
      close(report.auroc_after, e.auroc_after);
      close(report.log_loss_after, e.log_loss_after);
      close(report.brier_after, e.brier_after);
    });
  } else {
    it('the floor: its figures after calibration are the reference conventions with the 5e-5 floor and its fit', () => {
      // Engine zeros become 5e-5 before scaling, and the fit is the floored one: the same definitions,
      // computed here with the test's own softmax, give exactly what the product reports.
      const floored = metricsOf(
        c.probabilities.map((p, i) => scored(scaled(p, report.temperature, PROBABILITY_FLOOR), c.labels[i])),
      );
      close(report.ece_after, floored.ece, 1e-12);
      close(report.auroc_after, floored.auroc, 1e-12);
      close(report.log_loss_after, floored.log_loss, 1e-12);
      close(report.brier_after, floored.brier, 1e-12);
      // ...and they stay near the clipped figures: the floor moves them by little (at most 0.0024 here, the
      // log loss of seed6), but by more than the tolerance, which is why this case is checked this way.
      const gaps = [
        report.ece_after - e.ece_after,
        report.auroc_after! - e.auroc_after!,
        report.log_loss_after - e.log_loss_after,
        report.brier_after - e.brier_after,
      ].map(Math.abs);
      expect(Math.max(...gaps)).toBeGreaterThan(absolute);
      expect(Math.max(...gaps)).toBeLessThan(0.005);
    });
  }
});
