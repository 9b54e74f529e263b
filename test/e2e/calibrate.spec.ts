/**
 * `system1 calibrate` end to end: the built CLI asks a fake laya over HTTP, fits, reports and saves; the MCP
 * server then applies the saved fit. The fake knows the truth (`state.fake_truth`) and reports it distorted
 * by a known temperature, so the fit has a right answer to find.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { seededRandom } from '../../src/calibration/random';
import { LayaFake } from '../fakes/laya.fake';
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
  fake.fault = 'none';
});

const OPTIONS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/**
 * Labelled rows whose true probabilities travel in the context for the fake to distort: four to eight
 * options with well-spread logits (the design of the unit suite's synthetic engine).
 */
function syntheticRows(n: number, seed: number): Json[] {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, (_, i) => {
    const options = OPTIONS.slice(0, 4 + (i % 5));
    const weights = options.map(() => Math.exp(2 * normal()));
    const total = weights.reduce((s, w) => s + w, 0);
    const truth = weights.map((w) => w / total);
    let label = 0;
    for (let r = random(), acc = truth[0]; r > acc && label < options.length - 1; acc += truth[++label]);
    return {
      question: 'Which synthetic option is right?',
      options,
      context: { fake_truth: truth },
      label: options[label],
    };
  });
}

function writeRows(sandbox: Sandbox, rows: (Json | string)[], name = 'data.jsonl'): string {
  const file = path.join(sandbox.dir, name);
  writeFileSync(file, rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n');
  return file;
}

/**
 * Pinning a temperature within 5% takes about 2,000 answers, each a real HTTP round trip: about 15 s on an
 * idle 2-core machine, several times that on a busy one. The limits only stop a hang; bench/ measures speed.
 */
const HEAVY_RUN_MS = 240_000;

const calibrate = (sandbox: Sandbox, args: string[], env: Record<string, string> = {}) =>
  runCli(
    ['calibrate', ...args],
    sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint, ...env }),
    HEAVY_RUN_MS,
  );

it(
  'recovers a known temperature from 2,000 live answers, with held-out ECE at most 0.03',
  async () => {
    fake.distortion = 2;
    const sandbox = resources.sandbox();
    const result = await calibrate(sandbox, [writeRows(sandbox, syntheticRows(2000, 1)), '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Json;
    expect(report.rows).toMatchObject({ examples: 2000, answered: 2000, failed: 0, not_asked: 0 });
    const [question] = report.questions;
    expect(Math.abs(question.temperature - 2) / 2).toBeLessThan(0.05);
    expect(question.ece_held_out).toBeLessThanOrEqual(0.03);
    expect(question.ece_after).toBeLessThan(question.ece_before);
    expect(question.trusted).toBe(true);
    expect(report.fits.map((fit: Json) => [fit.question ?? fit.option_count, fit.model])).toEqual([
      ['Which synthetic option is right?', 'typed-decisions'],
      [4, 'typed-decisions'],
      [5, 'typed-decisions'],
      [6, 'typed-decisions'],
      [7, 'typed-decisions'],
      [8, 'typed-decisions'],
    ]);
  },
  HEAVY_RUN_MS + 30_000,
);

it('--write saves the fit; the server then answers calibrated: true for that model and false for another', async () => {
  fake.distortion = 2;
  const sandbox = resources.sandbox();
  const written = await calibrate(sandbox, [writeRows(sandbox, syntheticRows(400, 9)), '--write']);
  expect(written.code).toBe(0);
  expect(written.stdout).toMatch(/Saved \d+ fits to .*calibration\.json/);
  const saved = JSON.parse(readFileSync(path.join(sandbox.install, 'calibration.json'), 'utf8')) as Json;
  const temperature = saved.fits.find((fit: Json) => fit.question === 'Which synthetic option is right?')
    .temperature as number;

  fake.distortion = undefined; // the fake's default answer: 0.6667 / 0.3333 on two options (4 decimals)
  const ask = { question: 'Which synthetic option is right?', options: ['a', 'b'], min_confidence: 0 };
  const same = await resources.server({ sandbox, env: { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint } });
  const calibrated = (await same.decide(ask)).body;
  const expected =
    Math.pow(0.6667, 1 / temperature) / (Math.pow(0.6667, 1 / temperature) + Math.pow(0.3333, 1 / temperature));
  expect(calibrated).toMatchObject({ status: 'decided', decision: 'a', calibrated: true });
  expect(calibrated.confidence).toBeCloseTo(expected, 6);
  expect(
    (await same.capabilities()).calibration.fits.some(
      (fit: Json) => fit.file === path.join(sandbox.install, 'calibration.json'),
    ),
  ).toBe(true);

  const other = await resources.server({
    sandbox,
    env: { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint, SYSTEM1_LAYA_MODEL: 'english' },
  });
  expect((await other.decide(ask)).body).toMatchObject({ status: 'decided', calibrated: false, confidence: 0.6667 });
});

/** The seed sets with the truth a fake needs: the labelled option likely, sometimes not. */
function seedRowsWithTruth(file: string, seed: number): Json[] {
  const random = seededRandom(seed);
  return readFileSync(path.join(ROOT, 'calibration', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const row = JSON.parse(line) as Json;
      const options: string[] = row.options ?? ['yes', 'no'];
      const right = random() < 0.75 ? options.indexOf(row.label) : Math.floor(random() * options.length);
      const truth = options.map((_, i) => (i === right ? 0.6 : 0.4 / (options.length - 1)));
      return { ...row, context: { ...row.context, fake_truth: truth } };
    });
}

it.each(['routing-seed.jsonl', 'yes-no-seed.jsonl'])(
  '--json on %s prints every metric, and --plot writes an SVG',
  async (file) => {
    fake.distortion = 0.5;
    const sandbox = resources.sandbox();
    const plot = path.join(sandbox.dir, 'reliability.svg');
    const result = await calibrate(sandbox, [
      writeRows(sandbox, seedRowsWithTruth(file, 3)),
      '--json',
      '--plot',
      plot,
      '--target-accuracy',
      '0.7',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Json;
    expect(report.binning).toMatch(/10 equal-width confidence bins/);
    const interval = [expect.any(Number), expect.any(Number)];
    for (const group of [...report.questions, report.overall]) {
      expect(group).toMatchObject({
        n: expect.any(Number),
        accuracy: expect.any(Number),
        accuracy_ci: interval,
        ece_before: expect.any(Number),
        ece_before_ci: interval,
        ece_after: expect.any(Number),
        ece_after_ci: interval,
        ece_held_out: expect.any(Number),
        ece_noise_floor: { mean: expect.any(Number), p95: expect.any(Number) },
        auroc: expect.any(Number),
        auroc_ci: interval,
        log_loss_before: expect.any(Number),
        log_loss_after: expect.any(Number),
        trusted: expect.any(Boolean),
        warnings: expect.any(Array),
      });
      expect(group.thresholds.map((row: Json) => row.threshold)).toEqual([
        0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95,
      ]);
    }
    expect(report.questions).toHaveLength(1);
    expect(report.questions[0].n).toBe(file.startsWith('routing') ? 96 : 64);
    expect(report.overall.recommended_threshold).not.toBeNull();

    const svg = readFileSync(plot, 'utf8');
    expect(XMLValidator.validate(svg)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(svg) as Json;
    expect(parsed.svg['@_width']).toBe('1000');
    expect(svg).toContain('Reliability (10 equal-width bins)');
    expect(svg).toContain('Coverage against accuracy (after)');
    expect((svg.match(/<path /g) ?? []).length).toBeGreaterThan(10);
  },
);

it('skips malformed lines with their numbers, and counts what finished when the engine dies mid-run', async () => {
  const sandbox = resources.sandbox();
  const rows = syntheticRows(40, 2);
  const data = writeRows(sandbox, [
    rows[0],
    'not json',
    JSON.stringify({ question: 'Q?', options: ['a', 'b'], label: 'c' }),
    ...rows.slice(1),
  ]);
  let answered = 0;
  const original = fake['answer'].bind(fake);
  fake['answer'] = (request) => {
    if (request.path === '/v1/systemone' && ++answered >= 20) fake.fault = 'status-500';
    return original(request);
  };
  try {
    const result = await calibrate(sandbox, [data, '--json']);
    const report = JSON.parse(result.stdout) as Json;
    expect(report.rows.lines_skipped).toEqual([
      { line: 2, problem: 'not valid JSON' },
      { line: 3, problem: 'label "c" is not one of the options (a, b)' },
    ]);
    expect(result.stderr).toContain(`${data}:2: skipped: not valid JSON`);
    expect(report.rows.answered).toBe(20);
    expect(report.rows.failed).toBeGreaterThanOrEqual(3);
    expect(report.rows.not_asked).toBe(40 - report.rows.answered - report.rows.failed);
    expect(report.rows.not_asked).toBeGreaterThan(0);
    expect(report.rows.stopped_because).toMatch(/^3 failures in a row, the last: error \(HTTP 500/);
  } finally {
    fake['answer'] = original;
  }
});
