/**
 * The fits that ship with the package: each carries its sample size, whether it clears the trust floor, and
 * provenance a reader can check; a fit under the floor is listed as untrusted and not applied.
 */
import { type TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CalibrationService, SHIPPED_FITS } from '../../../src/calibration/calibration.service';
import { readFitFile, saveFits, type StoredFit } from '../../../src/calibration/fit-store';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { gatewayApp } from '../../helpers/gateway-app';

const ROUTING = 'Which Claude model tier does this task need?';
const DESTRUCTIVE = 'Is this tool call destructive or hard to reverse?';
const SPEC_PAGE = 'https://thematthub.github.io/Sys1-AI-Gateway/background/routing-and-calibration.html';

describe('shipped fits and the trust floor', () => {
  let dir: string;
  let app: TestingModule | undefined;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-shipped-'))));
  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('are the Laya typed-decisions fits, and carry n, trusted and the page and section their figures come from', () => {
    const { fits, problems } = readFitFile(SHIPPED_FITS);
    expect(problems).toEqual([]);
    const shipped = fits as (StoredFit & { trusted?: unknown })[];
    expect(shipped.map((fit) => [fit.provider, fit.model, fit.question, fit.temperature, fit.n, fit.trusted])).toEqual([
      ['laya', 'typed-decisions', ROUTING, 0.31, 45, true],
      ['laya', 'typed-decisions', DESTRUCTIVE, 0.27, 24, false],
    ]);
    for (const fit of shipped) {
      expect(fit.source).toMatch(/published study figures/);
      expect(fit.source).toContain(SPEC_PAGE);
      expect(fit.source).toContain('How routing and calibration work');
    }
  });

  it('a decision does not use the fit under the floor (n = 24), and uses the trusted one (n = 45)', () => {
    const service = new CalibrationService({ installDir: dir } as never);
    expect(service.find('laya', 'typed-decisions', DESTRUCTIVE, 2)).toBeUndefined();
    expect(service.find('laya', 'typed-decisions', ROUTING, 3)?.temperature).toBe(0.31);
  });

  it("an untrusted question fit gives way to the option count's trusted fit", () => {
    const base = { provider: 'mock', model: null, at_bound: false, source: 'test', fitted_at: '2026-12-01' };
    saveFits(path.join(dir, 'calibration.json'), [
      { ...base, question: 'Rerun or block?', temperature: 3, n: 12 },
      { ...base, option_count: 2, temperature: 0.5, n: 400 },
    ]);
    const service = new CalibrationService({ installDir: dir } as never);
    expect(service.find('mock', null, 'Rerun or block?', 2)?.temperature).toBe(0.5);
    const answer = service.apply(
      'mock',
      null,
      { text: 'Rerun or block?', options: ['rerun', 'block'] },
      { decision: 'rerun', confidence: 0.8, probabilities: { rerun: 0.8, block: 0.2 } },
    );
    expect(answer).toMatchObject({ calibrated: true });
    expect(answer.confidence).toBeCloseTo(0.64 / 0.68, 12);
  });

  it('system1_capabilities says which fits are trusted', async () => {
    app = await gatewayApp({ toml: '[gateway]\nprovider = "mock"', env: { SYSTEM1_INSTALL_DIR: dir } });
    const { fits } = app.get(CapabilitiesService).capabilities().calibration;
    expect(
      fits.map((fit) => [
        'question' in fit ? fit.question : fit.option_count,
        fit.n,
        (fit as { trusted?: unknown }).trusted,
      ]),
    ).toEqual([
      [ROUTING, 45, true],
      [DESTRUCTIVE, 24, false],
    ]);
  });
});
