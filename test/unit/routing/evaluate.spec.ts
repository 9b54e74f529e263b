import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { evaluateRouting, tierOf } from '../../../src/routing/evaluate';
import { routeTier } from '../../../src/routing/routing-rule';

const BARS = { minFeatureAccuracy: 0.85, minSafety: 0.95, minFailures: 30, threshold: 0.6 };

/**
 * A routing log: `n` labelled prompts (the engine right on every feature unless `wrong` names one), each with
 * a spawn that ran haiku, failed whenever the rule asks for more than haiku, and succeeded otherwise.
 */
function log(n: number, { wrong, confidence = 0.9 }: { wrong?: string; confidence?: number } = {}): string {
  const lines: object[] = [];
  for (let i = 0; i < n; i++) {
    const labels = { read_only: i % 3 === 1, design: i % 3 === 0, review: false, specified: i % 2 === 0 };
    const features = Object.fromEntries(
      Object.entries(labels).map(([f, v]) => [f, { answer: f === wrong ? !v : v, confidence, calibrated: true }]),
    );
    const engineTier = routeTier(Object.fromEntries(Object.entries(features).map(([f, a]) => [f, a.answer])) as never);
    lines.push({ source: 'routing', prompt_id: `p${i}`, provider: 'laya', features, tier: engineTier, labels });
    lines.push({ source: 'spawn', prompt_id: `p${i}`, tool_use_id: `t${i}`, model: 'haiku' });
    lines.push({
      source: 'outcome',
      tool_use_id: `t${i}`,
      outcome: routeTier(labels) === 'haiku' ? 'succeeded' : 'failed',
      resolved_model: 'claude-haiku-5',
    });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\nnot json\n';
}

describe('evaluate', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-evaluate-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    const file = path.join(dir, 'routing.jsonl');
    writeFileSync(file, text);
    return file;
  };

  it('is READY when every feature is accurate, the rule is safe and enough failures are labelled', () => {
    const result = evaluateRouting(write(log(50)), BARS);
    expect(result.failures).toBe(33);
    expect(result.features.design).toMatchObject({ n: 50, accuracy: 1, coverage: 1 });
    expect(result).toMatchObject({ safety_with_engine: 1, safety_with_labels: 1, verdict: 'READY', reasons: [] });
    expect(result.savings).toEqual({ successful_spawns: 17, cheaper_tier_suggested: 0 });
  });

  it('is NOT READY, saying why, when a feature is wrong, the rule unsafe or failures too few', () => {
    const wrongReview = evaluateRouting(write(log(50, { wrong: 'review' })), BARS);
    expect(wrongReview.verdict).toBe('NOT READY');
    expect(wrongReview.reasons).toEqual([expect.stringMatching(/^review: accuracy 0\.00 at 0\.6 is below 0\.85$/)]);

    // Calling plain implementation work read-only sends it to haiku, below the tier that failed.
    const wrongReadOnly = evaluateRouting(write(log(50, { wrong: 'read_only' })), BARS);
    expect(wrongReadOnly.safety_with_engine).toBeCloseTo(17 / 33, 6); // the design prompts still go to opus
    expect(wrongReadOnly.safety_with_labels).toBe(1); // a weak engine, not a weak rule
    expect(wrongReadOnly.reasons.some((r) => r.startsWith("the rule's safety with the engine's answers is 0.52"))).toBe(
      true,
    );

    const few = evaluateRouting(write(log(12)), BARS);
    expect(few.reasons).toEqual(['only 8 failed spawns are labelled (30 needed)']);
    expect(evaluateRouting(write(log(12)), { ...BARS, minFailures: 5 }).verdict).toBe('READY');
  });

  it('counts only answers at the threshold for accuracy', () => {
    const unsure = evaluateRouting(write(log(50, { confidence: 0.55 })), BARS);
    expect(unsure.features.read_only).toMatchObject({ coverage: 0, accuracy: null });
    expect(unsure.verdict).toBe('NOT READY');
  });

  it('maps model names to tiers', () => {
    expect([
      tierOf('claude-sonnet-5'),
      tierOf('haiku'),
      tierOf('claude-opus-5-5'),
      tierOf('fable'),
      tierOf(null),
    ]).toEqual(['sonnet', 'haiku', 'opus', null, null]);
  });

  it('system1 evaluate prints the verdict and exits 0 only when READY', () => {
    const main = path.join(__dirname, '..', '..', '..', 'dist', 'main.js');
    const env = { PATH: process.env.PATH!, HOME: dir, SYSTEM1_INSTALL_DIR: dir };
    const ready = execFileSync(process.execPath, [main, 'evaluate', '--log', write(log(50)), '--json'], {
      env,
    }).toString();
    const report = JSON.parse(ready);
    expect(report.verdict).toBe('READY');
    // Every answer right at 0.9: each feature labelled on all 50 prompts has a threshold with a guarantee.
    expect(report.bars.risk).toBe(0.05);
    expect(report.guaranteed_thresholds.design.guaranteed_threshold).toMatchObject({
      n: 50,
      errors: 0,
      target_accuracy: 0.85,
    });
    const text = execFileSync(process.execPath, [main, 'evaluate', '--log', write(log(50)), '--risk', '0.01'], {
      env,
    }).toString();
    expect(text).toContain('a threshold with a guarantee of 85% accuracy, per feature (risk 0.01):');
    expect(text).toMatch(/^ {4}design {5}0\.00 \(decides 100\.0%, n 50, 0 errors, p-value [\d.e-]+\)$/m);
    expect(text).toContain("[routing] min_confidence 0.6 is at or above every feature's threshold with a guarantee");
    let code = 0;
    let stdout = '';
    try {
      execFileSync(process.execPath, [main, 'evaluate', '--log', write(log(12))], { env });
    } catch (error) {
      code = (error as { status: number }).status;
      stdout = String((error as { stdout: Buffer }).stdout);
    }
    expect(code).toBe(1);
    expect(stdout).toMatch(/^NOT READY$/m);
    expect(stdout).toContain('only 8 failed spawns are labelled (30 needed)');
  });
});
