/**
 * The threshold with a guarantee against figures computed independently with scipy:
 * test/fixtures/threshold-vectors.json is a copy of ../shared/reference/threshold-vectors.json (its `about`
 * states the rule). For every case the threshold, n and errors match exactly and the p-value within 1e-9, and
 * so does every threshold the reference tested on the way (skipped or not, and its p-value).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  binomialCdf,
  canReject,
  GUARANTEE_GRID,
  guaranteedThreshold,
} from '../../../src/calibration/guaranteed-threshold';
import { itUnless } from '../../helpers/skip-unless';

interface Tested {
  threshold: number;
  n: number;
  errors: number;
  skipped?: boolean;
  p_value?: number;
}
interface Case {
  name: string;
  target_accuracy: number;
  delta: number;
  confidences: number[];
  correct: boolean[];
  expected: { threshold: number; n: number; errors: number; coverage: number; p_value: number } | null;
  tested: Tested[];
}
interface Vectors {
  about: string;
  grid: number[];
  cases: Case[];
}

const FIXTURE = path.join(__dirname, '../../fixtures/threshold-vectors.json');
const ORIGIN = path.join(__dirname, '../../../../shared/reference/threshold-vectors.json');
const vectors = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Vectors;

itUnless(existsSync(ORIGIN) ? undefined : '../shared/reference/threshold-vectors.json is not beside the clone')(
  'the fixture is the reference file, unchanged',
  () => {
    expect(readFileSync(FIXTURE, 'utf8')).toBe(readFileSync(ORIGIN, 'utf8'));
  },
);

it('states the rule the product follows, on the same grid', () => {
  expect(vectors.about).toMatch(/0\.99, 0\.98, \.\.\., 0\.00 are taken in that order/);
  expect(vectors.about).toMatch(/target \*\* n > delta\) is skipped/);
  expect(vectors.about).toMatch(/P\(Binomial\(n, 1 - target\) <= e\) <= delta/);
  expect(GUARANTEE_GRID).toEqual(vectors.grid);
  // Both outcomes are among the cases, or one branch of the rule goes unchecked.
  expect(vectors.cases.filter((c) => c.expected === null).length).toBeGreaterThan(0);
  expect(vectors.cases.filter((c) => c.expected !== null).length).toBeGreaterThan(0);
});

describe.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const options = { targetAccuracy: c.target_accuracy, risk: c.delta };

  it('recommends the expected threshold, n and errors exactly, the p-value within 1e-9', () => {
    const found = guaranteedThreshold(c.confidences, c.correct, options);
    if (c.expected === null) {
      expect(found).toBeNull();
      return;
    }
    expect(found).toMatchObject({
      threshold: c.expected.threshold,
      n: c.expected.n,
      errors: c.expected.errors,
      target_accuracy: c.target_accuracy,
      risk: c.delta,
    });
    expect(found!.coverage).toBeCloseTo(c.expected.coverage, 12);
    expect(Math.abs(found!.p_value - c.expected.p_value)).toBeLessThanOrEqual(1e-9);
  });

  it('skips and tests the thresholds the reference did, with its p-values', () => {
    for (const tested of c.tested) {
      expect(canReject(tested.n, options)).toBe(!tested.skipped);
      if (tested.p_value !== undefined)
        expect(Math.abs(binomialCdf(tested.errors, tested.n, 1 - c.target_accuracy) - tested.p_value)).toBeLessThan(
          1e-9,
        );
    }
  });
});

describe('binomialCdf', () => {
  it('matches a direct sum where terms are representable, and stays finite where (1 - p)^n underflows', () => {
    const direct = (k: number, n: number, p: number) => {
      let sum = 0;
      let term = Math.pow(1 - p, n);
      for (let i = 0; i <= k; i++) {
        sum += term;
        term *= ((n - i) / (i + 1)) * (p / (1 - p));
      }
      return sum;
    };
    expect(Math.abs(binomialCdf(3, 20, 0.1) - direct(3, 20, 0.1))).toBeLessThan(1e-14);
    expect(Math.abs(binomialCdf(30, 200, 0.2) - direct(30, 200, 0.2))).toBeLessThan(1e-13);
    // 0.9^20000 underflows to 0; the tail at the mean is about a half.
    expect(binomialCdf(2000, 20000, 0.1)).toBeGreaterThan(0.5);
    expect(binomialCdf(2000, 20000, 0.1)).toBeLessThan(0.51);
    expect(binomialCdf(-1, 10, 0.1)).toBe(0);
    expect(binomialCdf(10, 10, 0.1)).toBe(1);
  });
});
