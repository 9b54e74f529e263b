/**
 * `calibrate`'s headline must measure what a decision will use. The synthetic engine, its truth, the
 * maximum-likelihood fits and the ECE that the headline is compared with are all written here, apart from
 * the unit (no scaleProbabilities, no fitTemperature, no expectedCalibrationError), so the test does not
 * check the maths against itself.
 */
import { CalibrationRunner } from '../../../src/commands/calibrate/calibration-runner.service';
import type { LabelledExample } from '../../../src/commands/calibrate/labelled-data';
import type { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import { seededRandom } from '../../../src/calibration/random';
import { argmax, mlTemperature as fitByLikelihood, scaled, softmax } from '../../helpers/independent-calibration';

interface Row {
  example: LabelledExample;
  /** What the engine reports: rounded to 4 decimals, as Laya does. */
  reported: number[];
}

/**
 * An engine whose true temperature is `trueT`: it reports softmax(z), while the answers follow
 * softmax(z / trueT), from which each label is drawn with a seeded generator. Each row its own question,
 * with 2, 3 or 4 options.
 */
function uniqueQuestionRows(n: number, trueT: number, seed: number): Row[] {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, (_, i) => {
    const options = ['a', 'b', 'c', 'd'].slice(0, 2 + (i % 3));
    const logits = options.map(() => 0.8 * normal());
    const reported = softmax(logits).map((p) => Math.round(p * 1e4) / 1e4);
    const truth = softmax(logits.map((z) => z / trueT));
    let label = 0;
    for (let r = random(), acc = truth[0]; r > acc && label < options.length - 1; acc += truth[++label]);
    return {
      reported,
      example: {
        line: i + 1,
        question: `Synthetic question ${i}: which option is right?`,
        options,
        yesNo: false,
        label,
      },
    };
  });
}

/** One maximum-likelihood temperature for these rows. */
const mlTemperature = (rows: readonly Row[]) =>
  fitByLikelihood(
    rows.map((row) => row.reported),
    rows.map((row) => row.example.label),
  );

/** ECE in 10 equal-width bins, each row scaled by its own temperature. */
function ece(rows: readonly Row[], temperatureOf: (row: Row) => number): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, confidence: 0, correct: 0 }));
  for (const row of rows) {
    const p = scaled(row.reported, temperatureOf(row));
    const choice = argmax(p);
    const bin = bins[Math.min(Math.floor(p[choice] * 10), 9)];
    bin.n += 1;
    bin.confidence += p[choice];
    bin.correct += choice === row.example.label ? 1 : 0;
  }
  return bins.reduce((sum, bin) => sum + Math.abs(bin.correct - bin.confidence) / rows.length, 0);
}

/** A stand-in for the decision pipeline that answers each example with the engine's reported probabilities. */
function engineAnswering(rows: readonly Row[]): DecisionService {
  const byLine = new Map(rows.map((row) => [`calibrate-${row.example.line}`, row]));
  return {
    resolveCapabilities: () => ({ model: 'typed-decisions' }),
    decide: async (request: { requestId: string }) => {
      const { reported, example } = byLine.get(request.requestId)!;
      const probabilities = Object.fromEntries(example.options.map((option, i) => [option, reported[i]]));
      return {
        answers: {
          decision: {
            status: 'ok',
            belowThreshold: false,
            answer: {
              type: 'choice',
              value: example.options[argmax(reported)],
              probabilities,
              confidence: Math.max(...reported),
              calibrated: false,
            },
          },
        },
      };
    },
  } as unknown as DecisionService;
}

const runOn = (rows: Row[]) =>
  new CalibrationRunner(engineAnswering(rows)).run({
    examples: rows.map((row) => row.example),
    problems: [],
    providerName: 'laya',
    data: 'unique.jsonl',
    targetAccuracy: 0.8,
  });

describe('the headline on 1,500 rows of 1,500 different questions from an engine whose true temperature is 0.40', () => {
  const rows = uniqueQuestionRows(1500, 0.4, 5);
  const byCount = new Map(
    [2, 3, 4].map((count) => [count, rows.filter((row) => row.example.options.length === count)]),
  );
  const temperatures = new Map([...byCount].map(([count, group]) => [count, mlTemperature(group)]));
  const perOptionCountEce = ece(rows, (row) => temperatures.get(row.example.options.length)!);
  let report: Awaited<ReturnType<typeof runOn>>;
  // A few seconds on an idle machine (1,500 one-answer reports, each with its bootstrap); the limit only stops a hang.
  beforeAll(async () => (report = await runOn(rows)), 120_000);

  it('the independent fits find the true temperature, so the comparison means something', () => {
    for (const t of temperatures.values()) expect(Math.abs(t - 0.4)).toBeLessThan(0.08);
    expect(perOptionCountEce).toBeLessThan(0.04);
    expect(ece(rows, () => 1)).toBeGreaterThan(0.1);
  });

  it('reports ECE after within 0.03 of one maximum-likelihood fit per option count on the same rows', () => {
    expect(Math.abs(report.overall!.ece_after - perOptionCountEce)).toBeLessThanOrEqual(0.03);
    expect(Math.abs(report.overall!.ece_before - ece(rows, () => 1))).toBeLessThan(1e-9);
  });

  it('holds out the same way: fits made on the other folds, applied by the same rule', () => {
    expect(report.overall!.ece_held_out).not.toBeNull();
    expect(Math.abs(report.overall!.ece_held_out! - perOptionCountEce)).toBeLessThanOrEqual(0.03);
  });

  it('takes the threshold table and the recommendation from the fits a decision will use', () => {
    // With one answer per question a per-question fit puts every right answer near 1: a table from those
    // would promise accuracy no saved fit gives. Recompute the 0.8 row from the per-option-count fits.
    const kept = rows
      .map((row) => scaled(row.reported, temperatures.get(row.example.options.length)!))
      .map((p, i) => ({ confidence: Math.max(...p), correct: argmax(p) === rows[i].example.label }))
      .filter((p) => p.confidence >= 0.8);
    const row = report.overall!.thresholds.find((r) => r.threshold === 0.8)!;
    expect(Math.abs(row.n - kept.length)).toBeLessThanOrEqual(0.02 * rows.length);
    expect(Math.abs(row.accuracy! - kept.filter((p) => p.correct).length / kept.length)).toBeLessThan(0.03);
    expect(report.overall!.recommended_threshold!.accuracy!).toBeLessThan(0.95);
  });

  it('saves the three option-count fits and holds back every one-answer question fit, shown as untrusted', () => {
    expect(report.fits.map((fit) => fit.option_count).sort()).toEqual([2, 3, 4]);
    for (const fit of report.fits)
      expect(Math.abs(fit.temperature - temperatures.get(fit.option_count!)!)).toBeLessThan(0.02);
    expect(report.held_back).toHaveLength(1500);
    expect(report.questions.every((question) => question.trusted === false)).toBe(true);
  });
});
