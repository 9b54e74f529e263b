import { type TestingModule } from '@nestjs/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CalibrationService } from '../../../src/calibration/calibration.service';
import { readFitFile, saveFits, type StoredFit } from '../../../src/calibration/fit-store';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { feedFifo, fifoIt, makeFifo } from '../../helpers/fifo';
import { gatewayApp } from '../../helpers/gateway-app';

const QUESTION = 'Rerun the flaky pipeline or block the merge?';
const fit = (fields: Partial<StoredFit>): StoredFit => ({
  provider: 'mock',
  model: null,
  temperature: 2,
  n: 100,
  at_bound: false,
  source: 'test',
  fitted_at: '2026-11-30',
  ...fields,
});

describe('the fit store', () => {
  let dir: string;
  let app: TestingModule | undefined;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-fits-'))));
  afterEach(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (toml = '[gateway]\nprovider = "mock"\nmin_confidence = 0') => {
    app = await gatewayApp({ toml, env: { SYSTEM1_INSTALL_DIR: dir } });
    return app.get(DecideService);
  };
  const userFile = () => path.join(dir, 'calibration.json');

  it('rescales confidence and probabilities with a matching fit and says calibrated: true', async () => {
    saveFits(userFile(), [fit({ question: QUESTION, temperature: 2 })]);
    const reply = await (await start()).decide({ question: QUESTION, options: ['rerun', 'block'] });
    // mock: [0.9, 0.1] -> sqrt -> [0.9487, 0.3162] / 1.2649
    const expected = Math.sqrt(0.9) / (Math.sqrt(0.9) + Math.sqrt(0.1));
    expect(reply).toMatchObject({ status: 'decided', decision: 'rerun', calibrated: true });
    expect(reply.confidence).toBeCloseTo(expected, 12);
    expect(reply.probabilities!.rerun).toBeCloseTo(expected, 12);
    expect(reply.probabilities!.block).toBeCloseTo(1 - expected, 12);
  });

  it('falls back to the option-count fit for a question without its own, and leaves others alone', async () => {
    saveFits(userFile(), [fit({ option_count: 3, temperature: 0.5 })]);
    const gateway = await start();
    expect(await gateway.decide({ question: 'Which?', options: ['a', 'b', 'c'] })).toMatchObject({ calibrated: true });
    expect(await gateway.decide({ question: 'Which?', options: ['a', 'b'] })).toMatchObject({
      calibrated: false,
      confidence: 0.9,
    });
  });

  it('ignores a fit for another provider or model', async () => {
    saveFits(userFile(), [
      fit({ question: QUESTION, model: 'other-checkpoint' }),
      fit({ question: QUESTION, provider: 'laya' }),
    ]);
    const reply = await (await start()).decide({ question: QUESTION, options: ['rerun', 'block'] });
    expect(reply).toMatchObject({ calibrated: false, confidence: 0.9 });
  });

  it('abstains on the calibrated confidence, not the raw one', async () => {
    saveFits(userFile(), [fit({ question: QUESTION, temperature: 4 })]);
    const reply = await (
      await start('[gateway]\nprovider = "mock"\nmin_confidence = 0.7')
    ).decide({ question: QUESTION, options: ['rerun', 'block'] });
    expect(reply).toMatchObject({ status: 'abstained', calibrated: true });
    expect(reply.confidence).toBeLessThan(0.7);
  });

  it("puts the user's file before the shipped one, and replaces a fit with the same key when saving", () => {
    saveFits(userFile(), [
      fit({
        provider: 'laya',
        model: 'typed-decisions',
        question: 'Is this tool call destructive or hard to reverse?',
        temperature: 0.5,
      }),
    ]);
    saveFits(userFile(), [
      fit({
        provider: 'laya',
        model: 'typed-decisions',
        question: 'Is this tool call destructive or hard to reverse?',
        temperature: 0.6,
      }),
      fit({ option_count: 2 }),
    ]);
    expect(readFitFile(userFile()).fits.map((f) => f.temperature)).toEqual([0.6, 2]);
    const service = new CalibrationService({ installDir: dir } as never);
    expect(
      service.find('laya', 'typed-decisions', 'Is this tool call destructive or hard to reverse?', 2)?.temperature,
    ).toBe(0.6);
    expect(
      service.find('laya', 'typed-decisions', 'Which Claude model tier does this task need?', 3)?.temperature,
    ).toBe(0.31);
  });

  it('reports a broken fit file in capabilities instead of failing, and keeps deciding', async () => {
    writeFileSync(
      userFile(),
      '{"version": 1, "fits": [{"provider": "mock", "model": null, "question": "q", "temperature": 500}, 3]}',
    );
    const gateway = await start();
    expect(await gateway.decide({ question: QUESTION, options: ['a', 'b'] })).toMatchObject({
      status: 'decided',
      calibrated: false,
    });
    const { calibration } = app!.get(CapabilitiesService).capabilities();
    expect(calibration.problems).toEqual([
      expect.stringMatching(/fits\[0\] has a temperature outside \[0\.05, 20\]; ignored$/),
      expect.stringMatching(/fits\[1\] is not an object; ignored$/),
    ]);
    expect(calibration.fits.map((f) => f.provider)).toEqual(['laya', 'laya']);
    writeFileSync(userFile(), 'not json');
    expect(readFitFile(userFile()).problems).toEqual([`${userFile()}: not valid JSON`]);
    expect(readFileSync(userFile(), 'utf8')).toBe('not json');
  });

  fifoIt(
    'reports a FIFO as the user fit file in capabilities instead of waiting on it, and keeps deciding',
    async () => {
      const fifo = makeFifo(dir, 'calibration.json');
      const feeder = feedFifo(
        fifo,
        JSON.stringify({ version: 1, fits: [fit({ question: QUESTION, temperature: 2 })] }),
      );
      try {
        const gateway = await start();
        expect(await gateway.decide({ question: QUESTION, options: ['rerun', 'block'] })).toMatchObject({
          status: 'decided',
          calibrated: false,
          confidence: 0.9,
        });
        expect(app!.get(CapabilitiesService).capabilities().calibration.problems).toEqual([
          `${fifo}: cannot be read (${fifo} is a FIFO, not a regular file)`,
        ]);
      } finally {
        feeder.stop();
      }
    },
  );
});
