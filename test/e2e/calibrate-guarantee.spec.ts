/**
 * `system1 calibrate`'s threshold with a guarantee, end to end: the built CLI asks a fake laya that reports
 * known probabilities (an over-confident engine, 400 labelled answers), and its `--json` carries
 * `guaranteed_threshold` as the rule gives it on held-out confidences computed here apart from the product,
 * with the recommended `min_confidence` equal to it; the text report says so. On too few answers: none, and
 * how many more are needed. A bad `--risk` is refused naming the flag.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { guaranteedThreshold } from '../../src/calibration/guaranteed-threshold';
import { seededRandom } from '../../src/calibration/random';
import { LayaFake } from '../fakes/laya.fake';
import { reportedInState } from '../fakes/systemone-answer';
import { heldOutChoices } from '../helpers/independent-calibration';
import { type EngineSample, syntheticEngine } from '../helpers/synthetic-engine';
import { type Json, requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
let endpoint: string;

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  // Each example carries what the engine reports in its context.
  fake.answerChoice = reportedInState();
  endpoint = (await fake.start()).origin;
});
afterAll(() => fake.stop());

const OPTIONS = ['a', 'b', 'c'];
const QUESTION = 'Which option is right?';
const FLOOR = 5e-5;
/** What the runner reads of an answer: the reported probabilities renormalised. */
const asRead = (p: readonly number[]) => p.map((x) => x / p.reduce((s, y) => s + y, 0));

function dataFile(sandbox: Sandbox, sample: EngineSample): string {
  const file = path.join(sandbox.dir, 'labelled.jsonl');
  const lines = sample.probabilities.map((p, i) =>
    JSON.stringify({
      question: QUESTION,
      options: OPTIONS,
      context: { fake_answer: p },
      label: OPTIONS[sample.labels[i]],
    }),
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const calibrate = (sandbox: Sandbox, args: string[]) =>
  runCli(['calibrate', ...args], sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint }), 240_000);

it('--json: guaranteed_threshold on held-out confidences, and the recommended min_confidence equal to it; the text says so', async () => {
  const sandbox = resources.sandbox();
  const sample = syntheticEngine(400, 3, 21);
  const data = dataFile(sandbox, sample);
  const args = [data, '--target-accuracy', '0.8', '--risk', '0.05'];
  const result = await calibrate(sandbox, [...args, '--json']);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;

  const heldOut = heldOutChoices(sample.probabilities.map(asRead), sample.labels, seededRandom(13), 5, FLOOR);
  const expected = guaranteedThreshold(
    heldOut.map((p) => p.confidence),
    heldOut.map((p) => p.correct),
    { targetAccuracy: 0.8, risk: 0.05 },
  )!;
  expect(expected).not.toBeNull();
  expect(report.guaranteed_threshold).toEqual({
    threshold: expected.threshold,
    coverage: expected.n / 400,
    n: expected.n,
    errors: expected.errors,
    p_value: expect.any(Number),
    target_accuracy: 0.8,
    risk: 0.05,
  });
  expect(Math.abs(report.guaranteed_threshold.p_value - expected.p_value)).toBeLessThan(1e-12);
  expect(report.guaranteed_threshold.p_value).toBeLessThanOrEqual(0.05);
  expect(report.answers_needed).toBeNull();
  expect(report.recommended_min_confidence).toBe(expected.threshold);
  expect(report.questions[0].guaranteed_threshold).toEqual(report.guaranteed_threshold);

  const text = await calibrate(sandbox, args);
  expect(text.code).toBe(0);
  const threshold = expected.threshold.toFixed(2);
  expect(text.stdout).toContain('A threshold with a guarantee (held-out confidences, risk 0.05):');
  expect(text.stdout).toContain(
    `    ${threshold} (decides ${((expected.n / 400) * 100).toFixed(1)}%, n ${expected.n}, ${expected.errors} errors, p-value `,
  );
  expect(text.stdout).toContain(
    `With probability at least 95%, new decisions from the same source at confidence ${threshold} or above ` +
      'are right at least 80% of the time.',
  );
  expect(text.stdout).toContain(`Recommended min_confidence: ${threshold}, the threshold with a guarantee`);
  expect(text.stdout).toMatch(/point estimate for 80% accuracy on these answers: [\d.]+ .*optimistic, no guarantee/);
}, 300_000);

it('too few answers: guaranteed_threshold null with answers_needed, and no min_confidence recommended', async () => {
  const sandbox = resources.sandbox();
  const data = dataFile(sandbox, syntheticEngine(12, 1, 4));
  const result = await calibrate(sandbox, [data, '--target-accuracy', '0.9', '--json']);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;
  expect(report).toMatchObject({ guaranteed_threshold: null, recommended_min_confidence: null, risk: 0.05 });
  expect(report.answers_needed === null || report.answers_needed > 0).toBe(true);
  const text = await calibrate(sandbox, [data, '--target-accuracy', '0.9']);
  expect(text.stdout).toMatch(/none reaches 90% accuracy at risk 0\.05(: about \d+ more labelled answers|, and more)/);
  expect(text.stdout).toContain('Recommended min_confidence: none yet');
}, 120_000);

it.each(['0', '1', 'lots'])('--risk %s is refused, naming the flag', async (risk) => {
  const sandbox = resources.sandbox();
  const data = dataFile(sandbox, syntheticEngine(3, 1, 4));
  const result = await calibrate(sandbox, [data, '--risk', risk]);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('--risk');
  expect(result.stderr).toContain(`must be between 0 and 1 (both excluded), got ${risk}`);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});
