import { seededRandom } from '../../src/calibration/random';

/** Labelled engine answers: the probabilities an engine reported, and the index of the right option. */
export interface EngineSample {
  probabilities: number[][];
  labels: number[];
}

/**
 * A 3-option engine with known truth: each answer's true probabilities softmax(2z), z standard normal, the
 * label drawn from them; the engine reports truth^distortion renormalised, to 4 decimals (as Laya rounds).
 * Above 1 it is over-confident, below 1 under-confident, at 1 calibrated.
 */
export function syntheticEngine(n: number, distortion: number, seed: number): EngineSample {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const sample: EngineSample = { probabilities: [], labels: [] };
  for (let i = 0; i < n; i++) {
    const weights = [0, 1, 2].map(() => Math.exp(2 * normal()));
    const truth = weights.map((w) => w / weights.reduce((s, x) => s + x, 0));
    let label = 0;
    for (let r = random(), acc = truth[0]; r > acc && label < 2; acc += truth[++label]);
    const powered = truth.map((p) => Math.pow(p, distortion));
    sample.probabilities.push(powered.map((p) => Math.round((p / powered.reduce((s, x) => s + x, 0)) * 1e4) / 1e4));
    sample.labels.push(label);
  }
  return sample;
}

/** The engine of the example: always [0.7, 0.2, 0.1], right half the time (labels 50/25/25). */
export function halfRightAtSeventy(labels: readonly number[]): EngineSample {
  return { probabilities: labels.map(() => [0.7, 0.2, 0.1]), labels: [...labels] };
}
