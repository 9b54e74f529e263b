import { fitTemperature, type LabelledAnswer, logLoss, TEMPERATURE_BOUNDS } from '../../../src/calibration/fit';
import {
  accuracy,
  auroc,
  bootstrapInterval,
  eceNoiseFloor,
  expectedCalibrationError,
  heldOutEce,
  meanLogLoss,
  predict,
  type Prediction,
  recommendThreshold,
  thresholdTable,
} from '../../../src/calibration/calibration-metrics';
import { seededRandom } from '../../../src/calibration/random';
import { scaleNamed, scaleProbabilities } from '../../../src/calibration/temperature';

/** Five answers worked through by hand below. */
const FIVE: Prediction[] = [
  { confidence: 0.95, correct: true, labelProbability: 0.95 },
  { confidence: 0.85, correct: false, labelProbability: 0.1 },
  { confidence: 0.62, correct: true, labelProbability: 0.62 },
  { confidence: 0.65, correct: true, labelProbability: 0.65 },
  { confidence: 0.3, correct: false, labelProbability: 0.2 },
];

describe('metrics on hand-computed inputs', () => {
  it('accuracy', () => expect(accuracy(FIVE)).toBe(0.6));

  it('ECE: bins 9 (gap .05), 8 (.85), 6 (two answers, gap .365), 3 (.3) -> 1.93 / 5', () => {
    expect(expectedCalibrationError(FIVE)).toBeCloseTo(0.386, 10);
    expect(expectedCalibrationError([{ confidence: 1, correct: true, labelProbability: 1 }])).toBe(0); // 1.0 falls in the top bin
  });

  it('AUROC: 4 of the 6 right/wrong pairs ranked right; ties count half', () => {
    expect(auroc(FIVE)).toBeCloseTo(4 / 6, 10);
    const tie: Prediction[] = [
      { confidence: 0.7, correct: true, labelProbability: 0.7 },
      { confidence: 0.7, correct: false, labelProbability: 0.1 },
    ];
    expect(auroc(tie)).toBe(0.5);
    expect(auroc(FIVE.filter((p) => p.correct))).toBeNull();
  });

  it('log loss: mean of -ln(p of the right option)', () => {
    const expected = -(Math.log(0.95) + Math.log(0.1) + Math.log(0.62) + Math.log(0.65) + Math.log(0.2)) / 5;
    expect(meanLogLoss(FIVE)).toBeCloseTo(expected, 12);
    expect(expected).toBeCloseTo(0.974427, 5);
  });

  it('threshold table and the lowest threshold reaching the target', () => {
    const table = thresholdTable(FIVE);
    const at = (t: number) => table.find((row) => row.threshold === t)!;
    expect(at(0)).toEqual({ threshold: 0, coverage: 1, n: 5, accuracy: 0.6 });
    expect(at(0.6)).toEqual({ threshold: 0.6, coverage: 0.8, n: 4, accuracy: 0.75 });
    expect(at(0.65)).toMatchObject({ n: 3, accuracy: 2 / 3 });
    expect(at(0.85)).toMatchObject({ n: 2, accuracy: 0.5 });
    expect(at(0.9)).toEqual({ threshold: 0.9, coverage: 0.2, n: 1, accuracy: 1 });
    expect(at(0.95)).toMatchObject({ n: 1, accuracy: 1 });
    expect(recommendThreshold(table, 0.8)?.threshold).toBe(0.9);
    expect(recommendThreshold(table, 0.7)?.threshold).toBe(0.5);
    expect(recommendThreshold(thresholdTable(FIVE.filter((p) => !p.correct)), 0.5)).toBeNull();
  });

  it('the prediction is the most probable option, with its probability as confidence', () => {
    expect(predict({ probabilities: [0.2, 0.7, 0.1], label: 1 })).toEqual({
      confidence: 0.7,
      correct: true,
      labelProbability: 0.7,
    });
    expect(predict({ probabilities: [0.2, 0.7, 0.1], label: 2 })).toMatchObject({
      correct: false,
      labelProbability: 0.1,
    });
  });

  it('bootstrap intervals bracket the statistic and repeat run to run', () => {
    const interval = bootstrapInterval(FIVE, accuracy)!;
    expect(interval[0]).toBeLessThanOrEqual(0.6);
    expect(interval[1]).toBeGreaterThanOrEqual(0.6);
    expect(bootstrapInterval(FIVE, accuracy)).toEqual(interval);
  });

  it('the noise floor shrinks as the sample grows', () => {
    const small = eceNoiseFloor(Array(20).fill(0.8));
    const large = eceNoiseFloor(Array(2000).fill(0.8));
    expect(small.mean).toBeGreaterThan(0.05);
    expect(large.mean).toBeLessThan(0.02);
    expect(small.p95).toBeGreaterThanOrEqual(small.mean);
  });
});

describe('temperature scaling', () => {
  it('p^(1/T), renormalised: [0.8, 0.2] at T = 0.5 is [0.64, 0.04] / 0.68', () => {
    const [a, b] = scaleProbabilities([0.8, 0.2], 0.5);
    expect(a).toBeCloseTo(0.64 / 0.68, 12);
    expect(b).toBeCloseTo(0.04 / 0.68, 12);
    expect(scaleProbabilities([0.5, 0.3, 0.2], 1)).toEqual([0.5, 0.3, 0.2].map((p) => expect.closeTo(p, 12)));
  });

  it('keeps key order and never changes which option wins', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 500; i++) {
      const raw = Array.from({ length: 2 + Math.floor(random() * 5) }, () => random());
      const total = raw.reduce((s, x) => s + x, 0);
      const probabilities = raw.map((x) => x / total);
      const temperature = Math.exp((random() - 0.5) * 6);
      const scaled = scaleProbabilities(probabilities, temperature);
      const argmax = (values: number[]) => values.indexOf(Math.max(...values));
      expect(argmax(scaled)).toBe(argmax(probabilities));
    }
    expect(Object.keys(scaleNamed({ b: 0.1, a: 0.9 }, 0.3))).toEqual(['b', 'a']);
  });
});

/**
 * An engine whose reported probabilities are the true ones distorted by a known temperature: it reports
 * truth^distortion (renormalised), so a temperature equal to the distortion undoes it (over-confident when
 * it is above 1). Four to eight options with well-spread logits, so 2,000 answers pin the temperature down.
 */
export function syntheticEngine(distortion: number, n: number, seed: number): LabelledAnswer[] {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, (_, i) => {
    const options = 4 + (i % 5);
    const weights = Array.from({ length: options }, () => Math.exp(2 * normal()));
    const total = weights.reduce((sum, w) => sum + w, 0);
    const truth = weights.map((w) => w / total);
    let label = 0;
    for (let r = random(), acc = truth[0]; r > acc && label < options - 1; acc += truth[++label]);
    return { probabilities: scaleProbabilities(truth, 1 / distortion), label };
  });
}

/**
 * Twenty fits of 2,000 answers is the point of the bias check (one set alone has about 4% standard error):
 * about 10 s on an idle 2-core machine, more on a busy one. The limit only stops a hang.
 */
const HEAVY_FITS_MS = 180_000;

describe('fitting on 2,000 synthetic answers from a miscalibrated engine', () => {
  it.each([
    ['over-confident', 2.0],
    ['under-confident', 0.5],
    ['nearly calibrated', 1.1],
  ])('recovers the temperature of an %s engine within 5%, with held-out ECE at most 0.03', (_name, distortion) => {
    const answers = syntheticEngine(distortion, 2000, 1);
    const fit = fitTemperature(answers);
    expect(Math.abs(fit.temperature - distortion) / distortion).toBeLessThan(0.05);
    expect(fit.atBound).toBe(false);
    expect(fit.logLoss).toBeLessThan(logLoss(answers));
    expect(heldOutEce(answers)!).toBeLessThanOrEqual(0.03);
    const before = answers.map((a) => predict(a));
    const after = answers.map((a) => predict(a, fit.temperature));
    expect(after.map((p) => p.correct)).toEqual(before.map((p) => p.correct)); // no answer changes rank
    if (distortion !== 1.1) expect(expectedCalibrationError(after)).toBeLessThan(expectedCalibrationError(before));
  });

  it(
    'is unbiased: over 20 independent sets of 2,000 the median error is under 3% (one set: about 4% standard error)',
    () => {
      const errors = Array.from({ length: 20 }, (_, seed) =>
        Math.abs(fitTemperature(syntheticEngine(2, 2000, seed + 100)).temperature / 2 - 1),
      );
      errors.sort((a, b) => a - b);
      expect((errors[9] + errors[10]) / 2).toBeLessThan(0.03);
    },
    HEAVY_FITS_MS,
  );

  it('flags a fit that lands on a bound: with every answer right no finite optimum exists', () => {
    const allRight: LabelledAnswer[] = Array.from({ length: 30 }, (_, i) => ({
      probabilities: [0.6 + (i % 3) * 0.1, 0.4 - (i % 3) * 0.1],
      label: 0,
    }));
    const fit = fitTemperature(allRight);
    expect(fit.atBound).toBe(true);
    expect(fit.temperature).toBeCloseTo(TEMPERATURE_BOUNDS.min, 3);
  });
});
