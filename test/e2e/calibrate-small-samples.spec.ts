/**
 * `system1 calibrate` on small samples, end to end: the built CLI asks a fake laya that reports known
 * probabilities (over-confident, under-confident and well-calibrated engines at n = 40, 60, 120, 400, and
 * the engine that always says 0.7 for an answer right half the time). Each question's held-out
 * figures are compared with an independent stratified 5-fold computation; the plainly miscalibrated fits
 * are trusted, saved by --write and applied by system1_decide; the well-calibrated ones are not trusted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { seededRandom } from '../../src/calibration/random';
import { LayaFake } from '../fakes/laya.fake';
import { reportedInState } from '../fakes/systemone-answer';
import { heldOutScores, scaled } from '../helpers/independent-calibration';
import { type EngineSample, halfRightAtSeventy, syntheticEngine } from '../helpers/synthetic-engine';
import { type Json, requireBuild, Resources, runCli } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
let endpoint: string;

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  // Each example carries what the engine reports in its context; a decision without one gets DECIDED.
  fake.answerChoice = reportedInState(DECIDED);
  endpoint = (await fake.start()).origin;
});
afterAll(() => fake.stop());

const OPTIONS = ['a', 'b', 'c'];
/** What the fake answers a decision after the fits are saved. */
const DECIDED = [0.5, 0.3, 0.2];
const FLOOR = 5e-5;
const EXAMPLE = 'The issue example: which option is right?';

interface Case {
  question: string;
  engine: 'over-confident' | 'under-confident' | 'well-calibrated' | 'example';
  sample: EngineSample;
}

const DISTORTIONS = { 'over-confident': 3, 'under-confident': 1 / 3, 'well-calibrated': 1 } as const;
const CASES: Case[] = [
  ...Object.entries(DISTORTIONS).flatMap(([engine, distortion]) =>
    [40, 60, 120, 400].map((n) => ({
      question: `A ${engine} engine, ${n} answers: which option is right?`,
      engine: engine as Case['engine'],
      sample: syntheticEngine(n, distortion, 2),
    })),
  ),
  {
    question: EXAMPLE,
    engine: 'example',
    sample: halfRightAtSeventy(Array.from({ length: 60 }, (_, i) => [0, 1, 0, 2][i % 4])),
  },
];

/** What the runner reads of an answer: the reported probabilities renormalised. */
const asRead = (p: readonly number[]) => p.map((x) => x / p.reduce((s, y) => s + y, 0));

it('held-out figures match an independent stratified 5-fold computation; plainly miscalibrated fits are trusted, saved and applied', async () => {
  const sandbox = resources.sandbox();
  const data = path.join(sandbox.dir, 'small-samples.jsonl');
  const rows = CASES.flatMap(({ question, sample }) =>
    sample.probabilities.map((p, i) =>
      JSON.stringify({ question, options: OPTIONS, context: { fake_answer: p }, label: OPTIONS[sample.labels[i]] }),
    ),
  );
  writeFileSync(data, rows.join('\n') + '\n');
  const env = sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint });
  const result = await runCli(['calibrate', data, '--json', '--write'], env, 240_000);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;

  const mismatches: string[] = [];
  for (const { question, engine, sample } of CASES) {
    const figures = report.questions.find((q: Json) => q.question === question);
    const independent = heldOutScores(sample.probabilities.map(asRead), sample.labels, seededRandom(13), 5, FLOOR);
    if (Math.abs(figures.ece_held_out - independent.ece) > 0.05)
      mismatches.push(`${question}: held-out ECE ${figures.ece_held_out} vs ${independent.ece}`);
    if (Math.abs(figures.log_loss_held_out - independent.logLoss) > 0.02)
      mismatches.push(`${question}: held-out log loss ${figures.log_loss_held_out} vs ${independent.logLoss}`);
    const shouldTrust = engine !== 'well-calibrated';
    if (figures.trusted !== shouldTrust) mismatches.push(`${question}: trusted ${figures.trusted}, ${figures.verdict}`);
    if (
      shouldTrust &&
      !/^trusted: on held-out answers \(5 stratified folds\) it beats the raw engine/.test(figures.verdict)
    )
      mismatches.push(`${question}: ${figures.verdict}`);
  }
  expect(mismatches).toEqual([]);
  const example = report.questions.find((q: Json) => q.question === EXAMPLE);
  expect(example.temperature).toBeCloseTo(2.49, 2);
  expect(Math.abs(example.ece_held_out - 0.0154)).toBeLessThan(0.005);

  // --write saved exactly the trusted question fits, and the server applies each: softmax(log p / T).
  const saved = JSON.parse(readFileSync(path.join(sandbox.install, 'calibration.json'), 'utf8')) as Json;
  const trusted = CASES.filter((c) => c.engine !== 'well-calibrated').map((c) => c.question);
  expect(
    saved.fits
      .filter((fit: Json) => fit.question !== undefined)
      .map((fit: Json) => fit.question)
      .sort(),
  ).toEqual([...trusted].sort());
  const server = await resources.server({
    sandbox,
    env: { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint },
  });
  for (const question of trusted) {
    const { temperature } = report.questions.find((q: Json) => q.question === question);
    const answer = (await server.decide({ question, options: OPTIONS, min_confidence: 0 })).body;
    expect(answer).toMatchObject({ status: 'decided', decision: 'a', calibrated: true });
    expect(answer.confidence).toBeCloseTo(scaled(DECIDED, temperature, FLOOR)[0], 6);
  }
}, 300_000);
