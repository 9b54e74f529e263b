/**
 * The parts of a calibration report that had no test of their own, each against figures worked out here
 * independently: by hand, from an exact binomial distribution, or by brute force.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { calibrationFigures, type FitsInPlace } from '../../../src/calibration/calibration-figures';
import { reportApplied, trustCaveats, trustVerdict, trustWarnings } from '../../../src/calibration/calibration-report';
import { fitChooser, isTrusted, MIN_TRUSTED_N } from '../../../src/calibration/fit-choice';
import {
  accuracy,
  auroc,
  bootstrapInterval,
  eceNoiseFloor,
  type Prediction,
  reliabilityBins,
} from '../../../src/calibration/calibration-metrics';
import { seededRandom } from '../../../src/calibration/random';

const p = (confidence: number, correct: boolean): Prediction => ({
  confidence,
  correct,
  labelProbability: correct ? confidence : 1 - confidence,
});

/** P(K = k) for K ~ Binomial(n, q), in log space so n = 2,000 does not underflow. */
function binomialPmf(n: number, q: number): number[] {
  const logs = [n * Math.log(1 - q)];
  for (let k = 0; k < n; k++) logs.push(logs[k] + Math.log((n - k) / (k + 1)) + Math.log(q / (1 - q)));
  return logs.map(Math.exp);
}

/** The smallest atom x with P(X <= x) >= level, for a discrete distribution given as (value, probability). */
function quantile(atoms: readonly [number, number][], level: number): number {
  const sorted = [...atoms].sort((a, b) => a[0] - b[0]);
  let cumulative = 0;
  for (const [value, probability] of sorted) {
    cumulative += probability;
    if (cumulative >= level - 1e-12) return value;
  }
  return sorted[sorted.length - 1][0];
}

describe('reliabilityBins', () => {
  it('puts each answer in its equal-width bin (1.0 in the top one) with the mean confidence and accuracy there', () => {
    const bins = reliabilityBins([
      p(0.95, true),
      p(0.85, false),
      p(0.62, true),
      p(0.65, true),
      p(0.3, false),
      p(1, true),
      p(0.05, false),
    ]);
    expect(bins.map((b) => [b.from, b.to])).toEqual(Array.from({ length: 10 }, (_, i) => [i / 10, (i + 1) / 10]));
    expect(bins.map((b) => b.n)).toEqual([1, 0, 0, 1, 0, 0, 2, 0, 1, 2]);
    expect(bins[9]).toMatchObject({ confidence: 0.975, accuracy: 1 });
    expect(bins[8]).toMatchObject({ confidence: 0.85, accuracy: 0 });
    expect(bins[6].confidence).toBeCloseTo(0.635, 12);
    expect(bins[6].accuracy).toBe(1);
    expect(bins[1]).toMatchObject({ n: 0, confidence: null, accuracy: null });
  });

  it("sums to the reference ECE: sum over bins of n_bin / n * |accuracy - confidence| (numpy's figure)", () => {
    const vectors = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/calibration-vectors.json'), 'utf8'));
    for (const c of vectors.cases as {
      probabilities: number[][];
      labels: number[];
      expected: { ece_before: number };
    }[]) {
      const predictions = c.probabilities.map((row, i) => {
        const best = row.indexOf(Math.max(...row));
        return { confidence: row[best], correct: best === c.labels[i], labelProbability: row[c.labels[i]] };
      });
      const bins = reliabilityBins(predictions);
      const ece = bins.reduce(
        (sum, b) => (b.n ? sum + (b.n / predictions.length) * Math.abs(b.accuracy! - b.confidence!) : sum),
        0,
      );
      expect(ece).toBeCloseTo(c.expected.ece_before, 9);
      expect(bins.reduce((sum, b) => sum + b.n, 0)).toBe(predictions.length);
    }
  });
});

describe('reportApplied: each answer scaled by its own temperature', () => {
  // Row A: [0.8, 0.2], right option 0, T = 0.5 -> [0.64, 0.04] / 0.68 = [0.941176, 0.058824], right.
  // Row B: [0.6, 0.4], right option 1, T = 1 (no fit) -> stays; decides option 0, wrong.
  const report = reportApplied(
    [
      { answer: { probabilities: [0.8, 0.2], label: 0 }, temperature: 0.5 },
      { answer: { probabilities: [0.6, 0.4], label: 1 }, temperature: 1 },
    ],
    null,
    0.8,
  );
  const a = 0.64 / 0.68;

  it('measures before with the raw probabilities and after with each row scaled by its own fit', () => {
    expect(report.n).toBe(2);
    expect(report.accuracy).toBe(0.5);
    expect(report.ece_before).toBeCloseTo((0.2 + 0.6) / 2, 12); // bins 8 (0.8, right) and 6 (0.6, wrong)
    expect(report.ece_after).toBeCloseTo((1 - a + 0.6) / 2, 12);
    expect(report.log_loss_before).toBeCloseTo(-(Math.log(0.8) + Math.log(0.4)) / 2, 12);
    expect(report.log_loss_after).toBeCloseTo(-(Math.log(a) + Math.log(0.4)) / 2, 12);
    expect(report.brier_before).toBeCloseTo((2 * 0.2 ** 2 + 2 * 0.6 ** 2) / 2, 12);
    expect(report.brier_after).toBeCloseTo((2 * (1 - a) ** 2 + 2 * 0.6 ** 2) / 2, 12);
    expect(report.auroc).toBe(1);
    expect(report.auroc_after).toBe(1);
  });

  it('has no one temperature, takes the thresholds from the scaled answers, and says why not to trust two answers', () => {
    expect(report).toMatchObject({ temperature: 1, at_bound: false, ece_held_out: null, trusted: false });
    expect(report.thresholds.find((row) => row.threshold === 0.9)).toEqual({
      threshold: 0.9,
      coverage: 0.5,
      n: 1,
      accuracy: 1,
    });
    expect(report.recommended_threshold).toEqual({ threshold: 0.65, coverage: 0.5, n: 1, accuracy: 1 });
    expect(report.warnings).toEqual([
      `only 2 labelled answers: too few to trust a fit (${MIN_TRUSTED_N} or more)`,
      'too few answers for a held-out check',
    ]);
  });
});

/**
 * A fit with nothing to say against it: 200 answers, held-out log loss and Brier below the raw engine's,
 * the log-loss gain (0.05) beyond its noise (0.02), held-out ECE under the noise floor's 95% point.
 */
const sound: Parameters<typeof trustWarnings>[0] = {
  n: 200,
  at_bound: false,
  temperature: 0.7,
  ece_before: 0.12,
  ece_after: 0.02,
  ece_held_out: 0.03,
  ece_noise_floor: { mean: 0.02, p95: 0.04 },
  log_loss_before: 0.6,
  log_loss_held_out: 0.55,
  brier_before: 0.4,
  brier_held_out: 0.38,
  log_loss_gain_se: 0.02,
};

describe('trustWarnings', () => {
  it('says nothing of a sound fit, and its verdict says why it is trusted', () => {
    expect(trustWarnings(sound)).toEqual([]);
    expect(trustVerdict(sound)).toBe(
      'trusted: on held-out answers (5 stratified folds) it beats the raw engine, log loss 0.600 -> 0.550 and Brier 0.400 -> 0.380 (log-loss noise 0.020)',
    );
  });
  it('too few answers', () =>
    expect(trustWarnings({ ...sound, n: 29 })).toEqual([
      'only 29 labelled answers: too few to trust a fit (30 or more)',
    ]));
  it('a temperature on a bound', () =>
    expect(trustWarnings({ ...sound, at_bound: true, temperature: 0.05 })).toEqual([
      'the temperature landed on a bound (0.050): with (almost) every answer right or wrong there is no finite optimum',
    ]));
  it('no held-out check', () =>
    expect(
      trustWarnings({
        ...sound,
        ece_held_out: null,
        log_loss_held_out: null,
        brier_held_out: null,
        log_loss_gain_se: null,
      }),
    ).toEqual(['too few answers for a held-out check']));
  it('a held-out log loss or Brier score no better than the raw engine: not needed', () => {
    const notNeeded = 'not needed: on held-out answers the fit does not beat the raw engine';
    expect(trustWarnings({ ...sound, log_loss_held_out: 0.6 })).toEqual([
      `${notNeeded} (log loss 0.600 -> 0.600 and Brier 0.400 -> 0.380)`,
    ]);
    expect(trustWarnings({ ...sound, brier_held_out: 0.41 })).toEqual([
      `${notNeeded} (log loss 0.600 -> 0.550 and Brier 0.400 -> 0.410)`,
    ]);
    expect(trustVerdict({ ...sound, brier_held_out: 0.41 })).toBe(
      `not trusted: ${notNeeded} (log loss 0.600 -> 0.550 and Brier 0.400 -> 0.410)`,
    );
  });
  it('a gain within its noise: harmless, not trusted as an improvement', () =>
    expect(trustWarnings({ ...sound, log_loss_gain_se: 0.06 })).toEqual([
      'harmless but not shown to help: on held-out answers log loss 0.600 -> 0.550 and Brier 0.400 -> 0.380, a log-loss gain within its noise (0.060)',
    ]));
  it('held-out ECE above the ECE before does not judge', () =>
    expect(trustWarnings({ ...sound, ece_held_out: 0.13 })).toEqual([]));
  it('every reason at once', () =>
    expect(trustWarnings({ ...sound, n: 3, at_bound: true, log_loss_held_out: null })).toHaveLength(3));
});

describe('trustCaveats', () => {
  const OWN_DATA_ONLY = 'the fit looks calibrated on its own data but less so on held-out answers';

  it('none for a sound fit', () => expect(trustCaveats(sound)).toEqual([]));
  it('calibrated on its own data only: a caveat, not a warning', () => {
    expect(trustCaveats({ ...sound, ece_held_out: 0.05 })).toEqual([OWN_DATA_ONLY]);
    expect(trustWarnings({ ...sound, ece_held_out: 0.05 })).toEqual([]);
  });
  it("none when even the fit's own data is above the noise floor", () =>
    expect(trustCaveats({ ...sound, ece_after: 0.045, ece_held_out: 0.05 })).toEqual([]));
  it('none when the fit is not trusted anyway', () => {
    expect(trustCaveats({ ...sound, ece_held_out: 0.05, log_loss_held_out: 0.7 })).toEqual([]);
    expect(trustCaveats({ ...sound, ece_held_out: null })).toEqual([]);
  });
});

describe('bootstrapInterval against the exact bootstrap distribution', () => {
  it('accuracy of 60 right in 100: the 2.5% and 97.5% points of Binomial(100, 0.6) / 100, within resampling error', () => {
    const predictions = Array.from({ length: 100 }, (_, i) => p(0.7, i < 60));
    const [low, high] = bootstrapInterval(predictions, accuracy)!;
    // Resampling 100 answers with replacement makes the count right Binomial(100, 0.6). With 1,000
    // resamples the empirical 2.5% point lies, with ~99.7% confidence, between the exact quantiles at
    // 0.025 -+ 3 * sqrt(0.025 * 0.975 / 1000); the same at 97.5%.
    const atoms = binomialPmf(100, 0.6).map((probability, k) => [k / 100, probability] as [number, number]);
    const spread = (level: number) => 3 * Math.sqrt((level * (1 - level)) / 1000);
    expect(low).toBeGreaterThanOrEqual(quantile(atoms, 0.025 - spread(0.025)));
    expect(low).toBeLessThanOrEqual(quantile(atoms, 0.025 + spread(0.025)));
    expect(high).toBeGreaterThanOrEqual(quantile(atoms, 0.975 - spread(0.975)));
    expect(high).toBeLessThanOrEqual(quantile(atoms, 0.975 + spread(0.975)));
    expect(quantile(atoms, 0.025)).toBe(0.5);
    expect(quantile(atoms, 0.975)).toBe(0.69);
  });

  it('is null when the statistic never has a value', () => {
    expect(bootstrapInterval([p(0.9, true), p(0.8, true)], auroc)).toBeNull();
    expect(bootstrapInterval([], accuracy)).toBeNull();
  });
});

describe('eceNoiseFloor against the exact distribution of a calibrated engine', () => {
  // Every answer at confidence c sits in one bin, so the ECE of a calibrated engine is |K / n - c| with
  // K ~ Binomial(n, c): its mean and 95% point follow exactly from the binomial distribution.
  it.each([
    [20, 0.8],
    [2000, 0.8],
    [50, 0.7],
  ])('n = %i at confidence %f: mean and 95%% point within Monte Carlo error of the exact ones', (n, c) => {
    const floor = eceNoiseFloor(Array(n).fill(c));
    const atoms = binomialPmf(n, c).map((probability, k) => [Math.abs(k / n - c), probability] as [number, number]);
    const mean = atoms.reduce((s, [x, q]) => s + x * q, 0);
    const variance = atoms.reduce((s, [x, q]) => s + (x - mean) ** 2 * q, 0);
    expect(Math.abs(floor.mean - mean)).toBeLessThanOrEqual(4 * Math.sqrt(variance / 500));
    const spread = 3 * Math.sqrt((0.95 * 0.05) / 500);
    expect(floor.p95).toBeGreaterThanOrEqual(quantile(atoms, 0.95 - spread) - 1e-12);
    expect(floor.p95).toBeLessThanOrEqual(quantile(atoms, 0.95 + spread) + 1e-12);
  });
});

describe('auroc', () => {
  it('equals the pairwise count (ties half) on 500 random answers with many tied confidences', () => {
    const random = seededRandom(21);
    const predictions = Array.from({ length: 500 }, () => p(Math.round(random() * 20) / 20, random() < 0.7));
    const right = predictions.filter((x) => x.correct);
    const wrong = predictions.filter((x) => !x.correct);
    let wins = 0;
    for (const r of right)
      for (const w of wrong) wins += r.confidence > w.confidence ? 1 : r.confidence === w.confidence ? 0.5 : 0;
    expect(auroc(predictions)).toBeCloseTo(wins / (right.length * wrong.length), 12);
  });
});

describe('the rule that picks a fit', () => {
  const fit = (fields: object) => ({
    provider: 'laya',
    model: 'm',
    temperature: 1,
    n: 100,
    at_bound: false,
    ...fields,
  });
  const target = { provider: 'laya', model: 'm', question: 'Q?', optionCount: 3 };

  it('the trust floor: 30 answers, off the bounds, not called untrusted by its run', () => {
    expect(isTrusted({ n: 30, at_bound: false })).toBe(true);
    expect(isTrusted({ n: 29, at_bound: false })).toBe(false);
    expect(isTrusted({ n: 100, at_bound: true })).toBe(false);
    expect(isTrusted({ n: 100, at_bound: false, trusted: false })).toBe(false);
    expect(isTrusted({ n: 12, at_bound: false, trusted: true })).toBe(false);
  });

  it("the question's trusted fit, else the option count's, the first listed winning; other models ignored", () => {
    const choose = fitChooser([
      fit({ question: 'Q?', temperature: 2, n: 10 }),
      fit({ question: 'Q?', temperature: 3, model: 'other' }),
      fit({ option_count: 3, temperature: 4 }),
      fit({ question: 'Q?', temperature: 5 }),
      fit({ question: 'Q?', temperature: 6 }),
    ]);
    expect(choose(target)?.temperature).toBe(5);
    expect(choose({ ...target, question: 'Other?' })?.temperature).toBe(4);
    expect(choose({ ...target, question: 'Other?', optionCount: 2 })).toBeUndefined();
    expect(fitChooser([fit({ question: 'Q?', n: 10 })])(target)).toBeUndefined();
  });
});

describe('the headline counts the fits already in place, in the order decisions see them', () => {
  const Q = 'Rerun or block?';
  const answers = (n: number, top = 0.7) =>
    Array.from({ length: n }, (_, i) => ({
      question: Q,
      optionCount: 2,
      probabilities: [top, 1 - top],
      label: i % 4 === 0 ? 1 : 0,
    }));
  const inPlaceFit = (fields: object) => ({
    provider: 'mock',
    model: null,
    temperature: 2,
    n: 100,
    at_bound: false,
    source: 'test',
    fitted_at: '2026-12-01',
    file: '/home/me/.system1-gateway/calibration.json',
    ...fields,
  });
  const run = (rows: ReturnType<typeof answers>, inPlace: FitsInPlace) =>
    calibrationFigures(rows, {
      provider: 'mock',
      model: null,
      targetAccuracy: 0.8,
      source: 'test',
      fittedAt: 'now',
      inPlace,
    });

  it("the user's trusted fit for the question when this run's is too small to save", () => {
    const figures = run(answers(8), {
      user: [inPlaceFit({ question: Q, temperature: 2 })],
      shipped: [],
      saveInto: 'user',
    });
    expect(figures.fits).toEqual([]);
    expect(figures.overall_fits.fits).toEqual([
      { question: Q, temperature: 2, n: 100, from: '/home/me/.system1-gateway/calibration.json', answers: 8 },
    ]);
    // [0.7, 0.3] at T = 2 is sqrt-scaled: 0.7^0.5 / (0.7^0.5 + 0.3^0.5).
    expect(figures.overall!.thresholds[0]).toMatchObject({ n: 8, accuracy: 0.75 });
    expect(figures.overall!.ece_after).toBeCloseTo(
      Math.abs(0.75 - Math.sqrt(0.7) / (Math.sqrt(0.7) + Math.sqrt(0.3))),
      12,
    );
  });

  it("this run's trusted fit replaces the user's under --write, but not under --ship (the user's file comes first)", () => {
    const user = [inPlaceFit({ question: Q, temperature: 2 })];
    // An engine plainly over-confident (0.95 for answers right 3 times in 4), so this run's fit is trusted.
    const written = run(answers(80, 0.95), { user, shipped: [], saveInto: 'user' });
    expect(written.fits.map((fit) => fit.question ?? fit.option_count)).toEqual([Q, 2]);
    expect(written.overall_fits.fits).toEqual([
      expect.objectContaining({ question: Q, from: 'this run', answers: 80 }),
    ]);
    const shipped = run(answers(80, 0.95), { user, shipped: [], saveInto: 'shipped' });
    expect(shipped.overall_fits.fits).toEqual([
      expect.objectContaining({ question: Q, temperature: 2, from: '/home/me/.system1-gateway/calibration.json' }),
    ]);
  });
});
