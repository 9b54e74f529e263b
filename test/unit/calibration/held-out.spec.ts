/**
 * `calibrate`'s held-out check on small samples: each group's held-out figures against a stratified 5-fold
 * cross-validation written apart from the product (test/helpers/independent-calibration.ts: scikit-learn's
 * StratifiedKFold allocation, shuffled by the same seeded generator, seed 13, so the folds are the ones
 * the convention gives), and the trust verdict on over-confident,
 * under-confident and well-calibrated engines at n = 40, 60, 120 and 400.
 */
import { reportGroup } from '../../../src/calibration/calibration-report';
import { seededRandom } from '../../../src/calibration/random';
import { type EngineSample, halfRightAtSeventy, syntheticEngine } from '../../helpers/synthetic-engine';
import { heldOutScores, scores, scaled, mlTemperature } from '../../helpers/independent-calibration';

/** The product's documented floor on probabilities before the log. */
const FLOOR = 5e-5;

const report = ({ probabilities, labels }: EngineSample) =>
  reportGroup(
    probabilities.map((p, i) => ({ probabilities: p, label: labels[i] })),
    0.8,
  );

const ENGINES = { 'over-confident': 3, 'under-confident': 1 / 3, 'well-calibrated': 1 } as const;
const SIZES = [40, 60, 120, 400];
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

describe('held-out figures match an independent stratified 5-fold computation', () => {
  const cases = Object.entries(ENGINES).flatMap(([name, distortion]) =>
    SIZES.map((n) => [name, n, distortion] as const),
  );
  it.each(cases)('%s engine, n = %i: held-out ECE within 0.05, log loss within 0.02', (_, n, distortion) => {
    for (const seed of SEEDS.slice(0, 3)) {
      const sample = syntheticEngine(n, distortion, seed);
      const product = report(sample);
      const independent = heldOutScores(sample.probabilities, sample.labels, seededRandom(13), 5, FLOOR);
      expect(Math.abs(product.ece_held_out! - independent.ece)).toBeLessThanOrEqual(0.05);
      expect(Math.abs(product.log_loss_held_out! - independent.logLoss)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(product.brier_held_out! - independent.brier)).toBeLessThanOrEqual(0.02);
    }
  });
});

describe('the trust verdict rests on held-out log loss and Brier score', () => {
  const verdicts = (distortion: number, n: number) => SEEDS.map((seed) => report(syntheticEngine(n, distortion, seed)));

  it.each(SIZES)('a well-calibrated engine at n = %i: never trusted, its fit judged not needed or harmless', (n) => {
    const reports = verdicts(1, n);
    const judged = { 'not needed': 0, harmless: 0 };
    for (const r of reports) {
      expect(r.trusted).toBe(false);
      expect(r.verdict).toMatch(/^not trusted: (not needed|harmless but not shown to help)/);
      judged[r.verdict.includes('not needed') ? 'not needed' : 'harmless'] += 1;
    }
    // Both judgements are reached across the seeds, or the check below one of them is never exercised.
    expect(judged['not needed']).toBeGreaterThan(0);
    if (n <= 60) expect(judged.harmless).toBeGreaterThan(0);
  });

  it.each([
    ['over-confident', 3],
    ['under-confident', 1 / 3],
  ] as const)(
    'a plainly %s engine is trusted, held out beating the raw engine (9 seeds in 10 at n = 40, every seed from 60)',
    (_, distortion) => {
      for (const n of SIZES) {
        const reports = verdicts(distortion, n);
        const trusted = reports.filter((r) => r.trusted);
        expect(trusted.length).toBeGreaterThanOrEqual(n === 40 ? 9 : 10);
        for (const r of trusted) {
          expect(r.log_loss_held_out!).toBeLessThan(r.log_loss_before);
          expect(r.brier_held_out!).toBeLessThan(r.brier_before);
          expect(r.verdict).toMatch(
            /^trusted: on held-out answers \(5 stratified folds\) it beats the raw engine, log loss /,
          );
        }
      }
    },
  );
});

describe("the issue's example: an engine that always says 0.7 for an answer right half the time", () => {
  // 60 answers to one 3-option question, the engine saying [0.7, 0.2, 0.1], the labels 50/25/25 in three orders.
  const labelsInOrder = [
    [...Array<number>(30).fill(0), ...Array<number>(15).fill(1), ...Array<number>(15).fill(2)],
    Array.from({ length: 60 }, (_, i) => [0, 1, 0, 2][i % 4]),
    Array.from({ length: 60 }, (_, i) => [2, 1, 0, 0][i % 4]),
  ];

  it.each(labelsInOrder.map((labels, i) => [i + 1, labels] as const))(
    'order %i: trusted, T = 2.49, held-out ECE 0.015 as the independent folds give',
    (_, labels) => {
      const sample = halfRightAtSeventy(labels);
      const product = report(sample);
      const t = mlTemperature(sample.probabilities, labels, FLOOR);
      expect(t).toBeCloseTo(2.49, 2);
      expect(product.temperature).toBeCloseTo(t, 3);
      // Own data: confidence 0.4846 for answers right half the time.
      expect(
        scores(
          sample.probabilities.map((p) => scaled(p, t, FLOOR)),
          labels,
          FLOOR,
        ).ece,
      ).toBeCloseTo(0.0154, 3);
      const independent = heldOutScores(sample.probabilities, labels, seededRandom(13), 5, FLOOR);
      expect(independent.ece).toBeCloseTo(0.0154, 3);
      expect(Math.abs(product.ece_held_out! - 0.0154)).toBeLessThan(0.005);
      expect(Math.abs(product.log_loss_held_out! - independent.logLoss)).toBeLessThan(0.005);
      expect(product).toMatchObject({ trusted: true, warnings: [] });
      expect(product.verdict).toMatch(
        /^trusted: on held-out answers \(5 stratified folds\) it beats the raw engine, log loss 1\.156 -> 1\.04\d/,
      );
    },
  );
});
