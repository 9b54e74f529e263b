/**
 * `system1-gateway/calibration` as a consumer's `require` finds it, through package.json "exports" (Node
 * resolves a package's own name inside it, so the built dist/ is what answers): the threshold with a guarantee
 * and the metrics `calibrate` reports, for anyone's labelled data, loading no Nest and no engine.
 */
import { requireBuild, ROOT, runCommand } from './helpers/gateway';

beforeAll(() => requireBuild());

it('require("system1-gateway/calibration") gives guaranteedThreshold and the metrics, and loads no Nest and no engine', async () => {
  const run = await runCommand(
    process.execPath,
    [
      '-e',
      `
      const kit = require('system1-gateway/calibration');
      const loaded = Object.keys(require.cache);
      const confidences = [...Array(30).fill(0.95), ...Array(10).fill(0.5)];
      const correct = confidences.map((c) => c > 0.9);
      let refused;
      try { kit.guaranteedThreshold([0.5], [true], { targetAccuracy: 0.9, risk: 2 }); } catch (error) { refused = error.message; }
      console.log(JSON.stringify({
        exports: Object.keys(kit),
        nest: loaded.some((file) => file.includes('@nestjs')),
        engines: loaded.some((file) => file.includes('providers')),
        threshold: kit.guaranteedThreshold(confidences, correct, { targetAccuracy: 0.9, risk: 0.05 }),
        needed: kit.answersNeeded(confidences.slice(0, 10), correct.slice(0, 10), { targetAccuracy: 0.9, risk: 0.05 }),
        accuracy: kit.accuracy(confidences.map((confidence, i) => ({ confidence, correct: correct[i], labelProbability: confidence }))),
        refused,
      }));
      `,
    ],
    { env: { PATH: process.env.PATH!, HOME: ROOT }, cwd: ROOT },
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const seen = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(seen.exports).toEqual(
    expect.arrayContaining([
      'guaranteedThreshold',
      'answersNeeded',
      'thresholdGuarantee',
      'accuracy',
      'auroc',
      'expectedCalibrationError',
      'brierScore',
      'meanLogLoss',
      'thresholdTable',
      'recommendThreshold',
      'fitTemperature',
    ]),
  );
  expect(seen).toMatchObject({
    nest: false,
    engines: false,
    // 30 right at 0.95 reject every threshold down to 0.51 (0.9^30 <= 0.05); at 0.50 the 10 wrong stop it.
    threshold: { threshold: 0.51, coverage: 0.75, n: 30, errors: 0, target_accuracy: 0.9, risk: 0.05 },
    // 10 right at 0.95: 0.9^29 is the first power at or under 0.05.
    needed: 19,
    accuracy: 0.75,
    refused: 'risk must be a number between 0 and 1 (both excluded), got 2',
  });
});
