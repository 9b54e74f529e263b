/**
 * The threshold with a guarantee keeps its promise where the point estimate does not: 200 label sets of 400
 * answers from an engine of known truth (calibrated confidences, labels drawn from them: synthetic-engine.ts),
 * target 0.9, risk 0.05. The true accuracy above a threshold is the engine's own, read off a large sample of it.
 * Also: how many answers the report says are missing, and the errors a library caller gets for bad input.
 */
import {
  answersNeeded,
  GUARANTEE_GRID,
  guaranteedThreshold,
  thresholdGuarantee,
} from '../../../src/calibration/guaranteed-threshold';
import { predict, recommendThreshold, thresholdTable } from '../../../src/calibration/calibration-metrics';
import { syntheticEngine } from '../../helpers/synthetic-engine';

const TARGET = 0.9;
const RISK = 0.05;
const options = { targetAccuracy: TARGET, risk: RISK };

/** The chosen option's probability and whether it was the label, for each answer of a calibrated engine. */
function answers(n: number, seed: number) {
  const { probabilities, labels } = syntheticEngine(n, 1, seed);
  return probabilities.map((p, i) => predict({ probabilities: p, label: labels[i] }));
}

/**
 * The engine's true accuracy above each threshold of the grid, and of the point estimate's table: for a
 * calibrated engine the chance its answer is right is its confidence, so the mean confidence above t.
 */
function trueAccuracyAbove(): (threshold: number) => number {
  const population = answers(200_000, 424242).map((p) => p.confidence);
  const memo = new Map<number, number>();
  return (threshold) => {
    if (!memo.has(threshold)) {
      const kept = population.filter((c) => c >= threshold);
      memo.set(threshold, kept.reduce((sum, c) => sum + c, 0) / kept.length);
    }
    return memo.get(threshold)!;
  };
}

it('over 200 label sets at n = 400, the accuracy above the guaranteed threshold falls below 0.9 in at most 5%, the point estimate far more often', () => {
  const truth = trueAccuracyAbove();
  const sets = 200;
  let guaranteedMissed = 0;
  let pointMissed = 0;
  let guaranteedFound = 0;
  for (let seed = 1; seed <= sets; seed++) {
    const sample = answers(400, 1000 + seed);
    const guaranteed = guaranteedThreshold(
      sample.map((p) => p.confidence),
      sample.map((p) => p.correct),
      options,
    );
    if (guaranteed) {
      guaranteedFound += 1;
      if (truth(guaranteed.threshold) < TARGET) guaranteedMissed += 1;
    }
    const point = recommendThreshold(thresholdTable(sample), TARGET);
    if (point && truth(point.threshold) < TARGET) pointMissed += 1;
  }
  const rates = `guaranteed rule: ${guaranteedMissed}/${sets} sets below the target (found a threshold in ${guaranteedFound}); point estimate: ${pointMissed}/${sets}`;
  console.log(rates);
  // The guarantee is exercised: it recommends a threshold in most sets, not none at all.
  expect({ rates, found: guaranteedFound > sets / 2 }).toEqual({ rates, found: true });
  expect({ rates, withinRisk: guaranteedMissed / sets <= RISK }).toEqual({ rates, withinRisk: true });
  expect({ rates, pointWorse: pointMissed > guaranteedMissed }).toEqual({ rates, pointWorse: true });
});

describe('answers needed', () => {
  it('is none when a threshold qualifies, and a count that does qualify when scaled to it', () => {
    const big = answers(1500, 7);
    const confidences = big.map((p) => p.confidence);
    const correct = big.map((p) => p.correct);
    expect(thresholdGuarantee(confidences, correct, options)).toMatchObject({
      guaranteed_threshold: { target_accuracy: TARGET },
      answers_needed: null,
    });
    // Its first 40: too few for a guarantee, and a count of more that is positive.
    const small = { confidences: confidences.slice(0, 40), correct: correct.slice(0, 40) };
    expect(guaranteedThreshold(small.confidences, small.correct, options)).toBeNull();
    const needed = answersNeeded(small.confidences, small.correct, options);
    expect(needed).toBeGreaterThan(0);
    // The same answers repeated to that many more qualify: the count is not a guess from elsewhere.
    const copies = Math.ceil((40 + needed!) / 40);
    const repeated = (xs: readonly (number | boolean)[]) => Array.from({ length: copies }, () => xs).flat();
    expect(
      guaranteedThreshold(repeated(small.confidences) as number[], repeated(small.correct) as boolean[], options),
    ).not.toBeNull();
  });

  it('is 28 more for one right answer at a target of 0.9 (0.9^29 is the first power at or under 0.05)', () => {
    expect(answersNeeded([0.95], [true], options)).toBe(28);
    expect(guaranteedThreshold(Array<number>(28).fill(0.95), Array<boolean>(28).fill(true), options)).toBeNull();
    expect(guaranteedThreshold(Array<number>(29).fill(0.95), Array<boolean>(29).fill(true), options)).toMatchObject({
      // Every threshold from 0.95 down keeps the same 29 right answers, so each is rejected, 0.00 last.
      threshold: 0,
      n: 29,
      errors: 0,
    });
  });

  it('is none when every threshold errs more often than the target allows: more answers would not help', () => {
    const confidences = Array<number>(100).fill(0.99);
    const correct = confidences.map((_, i) => i % 2 === 0);
    expect(thresholdGuarantee(confidences, correct, options)).toEqual({
      guaranteed_threshold: null,
      answers_needed: null,
    });
  });
});

describe('the rule at its edges', () => {
  it('keeps answers at or above a threshold exactly, and reports the coverage of all answers', () => {
    const confidences = [...Array<number>(30).fill(0.84), 0.8399, 0.2];
    const found = guaranteedThreshold(confidences, Array<boolean>(32).fill(true), options);
    // All right, so every threshold tested is rejected: the last is 0.00, keeping all 32.
    expect(found).toMatchObject({ threshold: 0, n: 32, errors: 0, coverage: 1 });
    const firstWrongBelow = guaranteedThreshold(
      confidences,
      confidences.map((c) => c >= 0.84),
      options,
    );
    expect(firstWrongBelow).toMatchObject({ threshold: 0.84, n: 30, errors: 0, coverage: 30 / 32 });
    expect(GUARANTEE_GRID[0]).toBe(0.99);
  });

  it('has no threshold on no answers', () => {
    expect(thresholdGuarantee([], [], options)).toEqual({ guaranteed_threshold: null, answers_needed: null });
  });
});

describe("a library caller's bad input is refused, naming the field", () => {
  it.each([
    [[0.5, 1.2], [true, false], options, /^confidences\[1\] must be a number in \[0, 1\], got 1\.2$/],
    [[0.5, Number.NaN], [true, false], options, /^confidences\[1\] must be a number/],
    [[0.5], [true, false], options, /^confidences and correct must be as long as each other \(1 and 2\)$/],
    [[0.5], ['yes'], options, /^correct\[0\] must be true or false, got "yes"$/],
    [[0.5], [true], { targetAccuracy: 1.5, risk: 0.05 }, /^targetAccuracy must be a number in \[0, 1\], got 1\.5$/],
    [
      [0.5],
      [true],
      { targetAccuracy: 0.9, risk: 0 },
      /^risk must be a number between 0 and 1 \(both excluded\), got 0$/,
    ],
    [[0.5], [true], { targetAccuracy: 0.9 }, /^risk must be a number .*got undefined$/],
    ['0.5', [true], options, /^confidences must be an array/],
  ])('%j, %j, %j', (confidences, correct, given, message) => {
    expect(() => guaranteedThreshold(confidences as number[], correct as boolean[], given as typeof options)).toThrow(
      message,
    );
  });
});
