/**
 * `system1 calibrate`'s figures end to end, each checked against its value worked out here: the built CLI
 * asks a fake laya whose answers are known exactly (truth^distortion, renormalised, rounded to 4 decimals),
 * so every figure of the report can be recomputed from the rows, with this file's own softmax, fit, ECE,
 * AUROC, log loss and Brier score. Then the shipped fits: the server applies the trusted one only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { seededRandom } from '../../src/calibration/random';
import { LayaFake } from '../fakes/laya.fake';
import { mlTemperature as fitByLikelihood, scaled as scaledBy } from '../helpers/independent-calibration';
import { type Json, requireBuild, Resources, ROOT, runCli, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
let endpoint: string;

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  endpoint = (await fake.start()).origin;
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.distortion = undefined;
});

const SHIPPED = path.join(ROOT, 'calibration', 'calibration.json');
const ROUTING = 'Which Claude model tier does this task need?';
const DESTRUCTIVE = 'Is this tool call destructive or hard to reverse?';
/** The product's documented convention: probabilities floored at 5e-5 before the log (README, Calibrate). */
const FLOOR = 5e-5;
const THRESHOLDS = [0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

interface Row {
  question: string;
  options: string[];
  label: number;
  truth: number[];
}

/** What the fake answers, as the runner reads it: truth^distortion renormalised, 4 decimals, renormalised. */
function reported(row: Row, distortion: number): number[] {
  const powered = row.truth.map((p) => Math.pow(Math.max(p, 1e-12), distortion));
  const total = powered.reduce((s, p) => s + p, 0);
  const rounded = powered.map((p) => Number((p / total).toFixed(4)));
  const sum = rounded.reduce((s, p) => s + p, 0);
  return rounded.map((p) => p / sum);
}

/** The product's convention: probabilities floored at 5e-5 before the log. */
const scaled = (p: readonly number[], t: number) => scaledBy(p, t, FLOOR);

interface Scored {
  confidence: number;
  correct: boolean;
  label: number;
  squared: number;
}
const score = (p: readonly number[], label: number): Scored => {
  const best = p.reduce((b, x, i) => (x > p[b] ? i : b), 0);
  return {
    confidence: p[best],
    correct: best === label,
    label: p[label],
    squared: p.reduce((s, x, k) => s + (x - (k === label ? 1 : 0)) ** 2, 0),
  };
};

/** Every figure the report gives for a set of scored answers, computed from their definitions. */
function figures(answers: Scored[]) {
  const n = answers.length;
  const bins = Array.from({ length: 10 }, () => 0);
  for (const a of answers) bins[Math.min(Math.floor(a.confidence * 10), 9)] += (a.correct ? 1 : 0) - a.confidence;
  const right = answers.filter((a) => a.correct);
  const wrong = answers.filter((a) => !a.correct);
  let wins = 0;
  for (const r of right)
    for (const w of wrong) wins += r.confidence > w.confidence ? 1 : r.confidence === w.confidence ? 0.5 : 0;
  return {
    accuracy: right.length / n,
    ece: bins.reduce((s, gap) => s + Math.abs(gap), 0) / n,
    auroc: right.length && wrong.length ? wins / (right.length * wrong.length) : null,
    logLoss: answers.reduce((s, a) => s - Math.log(Math.max(a.label, FLOOR)), 0) / n,
    brier: answers.reduce((s, a) => s + a.squared, 0) / n,
    thresholds: THRESHOLDS.map((threshold) => {
      const kept = answers.filter((a) => a.confidence >= threshold);
      return {
        threshold,
        coverage: kept.length / n,
        n: kept.length,
        accuracy: kept.length ? kept.filter((a) => a.correct).length / kept.length : null,
      };
    }),
  };
}

/** The maximum-likelihood temperature with the product's floor. */
const mlTemperature = (probabilities: number[][], labels: number[]) => fitByLikelihood(probabilities, labels, FLOOR);

/**
 * A seed file's rows with a seeded truth the label is a draw from: random true probabilities, one option
 * drawn from them, and that option's probability swapped onto the labelled one (options are exchangeable).
 */
function seedRows(file: string, seed: number, limit = Infinity): Row[] {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return readFileSync(path.join(ROOT, 'calibration', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, limit)
    .map((line) => {
      const row = JSON.parse(line) as Json;
      const options: string[] = row.options ?? ['yes', 'no'];
      const label = options.indexOf(row.label);
      const weights = options.map(() => Math.exp(1.5 * normal()));
      const total = weights.reduce((s, w) => s + w, 0);
      const truth = weights.map((w) => w / total);
      let drawn = 0;
      for (let r = random(), acc = truth[0]; r > acc && drawn < options.length - 1; acc += truth[++drawn]);
      [truth[drawn], truth[label]] = [truth[label], truth[drawn]];
      return { question: row.question, options, label, truth };
    });
}

function writeRows(sandbox: Sandbox, rows: Row[]): string {
  const file = path.join(sandbox.dir, 'data.jsonl');
  const line = (row: Row) => ({
    question: row.question,
    ...(row.options.join() === 'yes,no' ? {} : { options: row.options }),
    context: { fake_truth: row.truth },
    label: row.options[row.label],
  });
  writeFileSync(file, rows.map((row) => JSON.stringify(line(row))).join('\n') + '\n');
  return file;
}

const calibrate = (sandbox: Sandbox, args: string[]) =>
  runCli(['calibrate', ...args], sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint }), 120_000);

const near = (actual: number | null, expected: number | null, digits = 9) => {
  if (expected === null) expect(actual).toBeNull();
  else expect(actual).toBeCloseTo(expected, digits);
};

function expectFigures(group: Json, answersBefore: Scored[], answersAfter: Scored[]) {
  const before = figures(answersBefore);
  const after = figures(answersAfter);
  expect(group.n).toBe(answersBefore.length);
  near(group.accuracy, before.accuracy);
  near(group.ece_before, before.ece);
  near(group.ece_after, after.ece);
  near(group.auroc, before.auroc);
  near(group.auroc_after, after.auroc);
  near(group.log_loss_before, before.logLoss);
  near(group.log_loss_after, after.logLoss);
  near(group.brier_before, before.brier);
  near(group.brier_after, after.brier);
  group.thresholds.forEach((row: Json, i: number) => {
    expect(row.threshold).toBe(after.thresholds[i].threshold);
    expect(row.n).toBe(after.thresholds[i].n);
    near(row.coverage, after.thresholds[i].coverage);
    near(row.accuracy, after.thresholds[i].accuracy);
  });
  for (const interval of ['accuracy_ci', 'ece_before_ci', 'ece_after_ci', 'auroc_ci']) {
    expect(group[interval][0]).toBeLessThanOrEqual(group[interval][1]);
  }
  return after;
}

it('--json on the 64 yes/no seed rows: every figure is the one computed from the rows, before and after the fit', async () => {
  fake.distortion = 0.5;
  const sandbox = resources.sandbox();
  // Seed 6: a draw whose fit beats the raw engine on held-out answers by more than its noise (at 64
  // answers 3 draws of 8 of this 2x under-confident engine do; the others are not trusted).
  const rows = seedRows('yes-no-seed.jsonl', 6);
  const result = await calibrate(sandbox, [writeRows(sandbox, rows), '--json', '--target-accuracy', '0.7']);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;
  const engine = rows.map((row) => reported(row, 0.5));
  const labels = rows.map((row) => row.label);

  const [question] = report.questions;
  expect(question.question).toBe(DESTRUCTIVE);
  const temperature = mlTemperature(engine, labels);
  expect(Math.abs(question.temperature / temperature - 1)).toBeLessThan(1e-3);
  const before = engine.map((p, i) => score(p, labels[i]));
  const after = expectFigures(
    question,
    before,
    engine.map((p, i) => score(scaled(p, question.temperature), labels[i])),
  );
  const recommended = after.thresholds.find((row) => row.n > 0 && row.accuracy! >= 0.7) ?? null;
  expect(question.recommended_threshold?.threshold ?? null).toBe(recommended?.threshold ?? null);

  // Overall: the run's trusted question fit applies to every row (the shipped fit for this question is
  // under the trust floor and is not applied), so overall and question agree.
  expect(question.trusted).toBe(true);
  expect(report.overall_fits).toEqual({
    by_question: 64,
    by_option_count: 0,
    none: 0,
    fits: [expect.objectContaining({ question: DESTRUCTIVE, from: 'this run', answers: 64 })],
  });
  expectFigures(
    report.overall,
    before,
    engine.map((p, i) => score(scaled(p, question.temperature), labels[i])),
  );
  expect(report.fits.map((fit: Json) => [fit.question ?? fit.option_count, fit.trusted])).toEqual([
    [DESTRUCTIVE, true],
    [2, true],
  ]);
});

it('the headline names the fit a decision would use: the shipped trusted fit when the run has too few answers', async () => {
  fake.distortion = 0.5;
  const sandbox = resources.sandbox();
  const rows = seedRows('routing-seed.jsonl', 6, 20);
  const result = await calibrate(sandbox, [writeRows(sandbox, rows), '--json']);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;
  const engine = rows.map((row) => reported(row, 0.5));
  const labels = rows.map((row) => row.label);

  expect(report.questions[0]).toMatchObject({ question: ROUTING, n: 20, trusted: false });
  expect(report.questions[0].warnings[0]).toBe('only 20 labelled answers: too few to trust a fit (30 or more)');
  expect(report.fits).toEqual([]);
  expect(report.held_back.map((held: Json) => held.question ?? held.option_count)).toEqual([ROUTING, 3]);
  expect(report.overall_fits).toEqual({
    by_question: 20,
    by_option_count: 0,
    none: 0,
    fits: [{ question: ROUTING, temperature: 0.31, n: 45, from: SHIPPED, answers: 20 }],
  });
  expectFigures(
    report.overall,
    engine.map((p, i) => score(p, labels[i])),
    engine.map((p, i) => score(scaled(p, 0.31), labels[i])),
  );
});

it('with no trusted fit anywhere the headline leaves the answers as they are', async () => {
  fake.distortion = 0.5;
  const sandbox = resources.sandbox();
  const rows = seedRows('yes-no-seed.jsonl', 8, 20);
  const report = JSON.parse((await calibrate(sandbox, [writeRows(sandbox, rows), '--json'])).stdout) as Json;
  expect(report.overall_fits).toEqual({ by_question: 0, by_option_count: 0, none: 20, fits: [] });
  const engine = rows.map((row) => score(reported(row, 0.5), row.label));
  expectFigures(report.overall, engine, engine);
});

it('1,500 different questions: the headline is what the saved option-count fits give, the untrusted fits apart', async () => {
  fake.distortion = 0.4;
  const sandbox = resources.sandbox();
  const random = seededRandom(17);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const rows: Row[] = Array.from({ length: 1500 }, (_, i) => {
    const options = ['a', 'b', 'c', 'd'].slice(0, 2 + (i % 3));
    const weights = options.map(() => Math.exp(2 * normal()));
    const total = weights.reduce((s, w) => s + w, 0);
    const truth = weights.map((w) => w / total);
    let label = 0;
    for (let r = random(), acc = truth[0]; r > acc && label < options.length - 1; acc += truth[++label]);
    return { question: `Synthetic question ${i}: which option is right?`, options, label, truth };
  });
  const result = await calibrate(sandbox, [writeRows(sandbox, rows), '--write']);
  expect(result.code).toBe(0);

  const engine = rows.map((row) => reported(row, 0.4));
  const temperatureOf = new Map(
    [2, 3, 4].map((count) => {
      const group = rows.map((row, i) => ({ row, i })).filter(({ row }) => row.options.length === count);
      return [
        count,
        mlTemperature(
          group.map(({ i }) => engine[i]),
          group.map(({ row }) => row.label),
        ),
      ];
    }),
  );
  const expected = figures(
    engine.map((p, i) => score(scaled(p, temperatureOf.get(rows[i].options.length)!), rows[i].label)),
  );
  const overall = /Overall, as decisions will see it[\s\S]*?ECE (\d\.\d+) \[[^\]]*\] -> (\d\.\d+)/.exec(result.stdout)!;
  expect(Math.abs(Number(overall[2]) - expected.ece)).toBeLessThanOrEqual(0.03);
  expect(result.stdout).toContain(
    "(0 by their question's fit, 1500 by their option count's, 0 unscaled: no trusted fit;",
  );
  expect(result.stdout).toContain('Question fits NOT TRUSTED (not saved, not applied');
  expect(result.stdout).toContain('... and 1490 more untrusted question fits (--json lists them all)');
  expect(result.stdout).toContain('Saved 3 fits to');

  const saved = JSON.parse(readFileSync(path.join(sandbox.install, 'calibration.json'), 'utf8')) as Json;
  expect(saved.fits.map((fit: Json) => [fit.option_count, fit.n, fit.trusted])).toEqual([
    [2, 500, true],
    [3, 500, true],
    [4, 500, true],
  ]);
  for (const fit of saved.fits)
    expect(Math.abs(fit.temperature / temperatureOf.get(fit.option_count)! - 1)).toBeLessThan(1e-3);
});

it('the server applies the shipped trusted fit (n = 45), lists the one under the floor (n = 24) as untrusted and leaves its answers raw', async () => {
  const sandbox = resources.sandbox();
  const server = await resources.server({
    sandbox,
    env: { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint },
  });
  const { fits } = (await server.capabilities()).calibration;
  expect(fits.map((fit: Json) => [fit.question, fit.n, fit.trusted, fit.file])).toEqual([
    [ROUTING, 45, true, SHIPPED],
    [DESTRUCTIVE, 24, false, SHIPPED],
  ]);
  // The fake's default answer: shares 3:2:1 on three options, 2:1 on two (4 decimals).
  const routing = (await server.decide({ question: ROUTING, options: ['haiku', 'sonnet', 'opus'], min_confidence: 0 }))
    .body;
  expect(routing).toMatchObject({ status: 'decided', decision: 'haiku', calibrated: true });
  expect(routing.confidence).toBeCloseTo(scaled([0.5, 0.3333, 0.1667], 0.31)[0], 6);
  const destructive = (await server.decide({ question: DESTRUCTIVE, min_confidence: 0 })).body;
  expect(destructive).toMatchObject({ status: 'decided', decision: 'yes', calibrated: false, confidence: 0.6667 });
});
