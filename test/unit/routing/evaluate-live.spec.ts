/** `evaluate --live` over a stub feature reader: what it asks, how it scores the answers, how it copes with failures. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { evaluateLive, failureCode, type FeatureAsker, STOP_AFTER_FAILURES } from '../../../src/routing/evaluate-live';
import type { FeatureReading } from '../../../src/routing/feature-reader.service';

const BARS = { minFeatureAccuracy: 0.85, minSafety: 0.95, minFailures: 1, threshold: 0.6 };
const NO = { read_only: false, design: false, review: false, specified: false };

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-evaluate-live-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeLog(lines: object[]): string {
  const file = path.join(dir, 'routing.jsonl');
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}

/** A reader answering each prompt from `answers` (confidence 0.9), failing the prompts in `failing`; counts calls in flight. */
function stubReader(answers: Record<string, Partial<typeof NO>>, failing = new Set<string>()) {
  const asked: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const reader: FeatureAsker = {
    async read(prompt: string): Promise<FeatureReading> {
      asked.push(prompt);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      if (failing.has(prompt)) return { kind: 'failed', detail: 'laya: timeout (no answer within 5000 ms)' };
      const given = { ...NO, ...answers[prompt] };
      const features = Object.fromEntries(
        Object.entries(given).map(([f, v]) => [f, { answer: v, confidence: 0.9, calibrated: false }]),
      );
      return { kind: 'answered', provider: 'laya', features: features as never, confident: true, engineCalls: 1 };
    },
  };
  return { reader, asked, mostInFlight: () => mostInFlight };
}

const engine = (reader: FeatureAsker) => ({ provider: 'laya', model: 'typed-decisions', reader, budgetMs: 5000 });

it("scores the engine's new answers, not the logged ones, and the rule's tier on them for safety", async () => {
  const log = writeLog([
    // Logged by another engine, wrongly (design missed); labelled design. The spawn ran sonnet and failed.
    {
      source: 'routing',
      prompt_id: 'p1',
      prompt: 'design the cache',
      provider: 'von',
      features: { design: { answer: false, confidence: 0.9 } },
      tier: 'sonnet',
      labels: { ...NO, design: true },
    },
    { source: 'spawn', prompt_id: 'p1', tool_use_id: 't1', model: 'sonnet' },
    { source: 'outcome', tool_use_id: 't1', outcome: 'failed', resolved_model: 'claude-sonnet-5' },
    // Not labelled, but its spawn has an outcome: asked too, for safety. The engine calls it read-only (haiku).
    { source: 'routing', prompt_id: 'p2', prompt: 'rename the flag everywhere', provider: 'von', tier: 'sonnet' },
    { source: 'spawn', prompt_id: 'p2', tool_use_id: 't2', model: 'sonnet' },
    { source: 'outcome', tool_use_id: 't2', outcome: 'failed', resolved_model: 'claude-sonnet-5' },
    // Neither labelled nor judged: not asked.
    { source: 'routing', prompt_id: 'p3', prompt: 'anything at all', provider: 'von', tier: 'sonnet' },
    // Labelled but its text is not in the log: cannot be asked.
    { source: 'routing', prompt_id: 'p4', provider: 'von', tier: 'sonnet', labels: NO },
  ]);
  const stub = stubReader({ 'design the cache': { design: true }, 'rename the flag everywhere': { read_only: true } });
  const report = await evaluateLive(log, BARS, engine(stub.reader));

  expect(stub.asked.sort()).toEqual(['design the cache', 'rename the flag everywhere']);
  expect(report).toMatchObject({ mode: 'live', provider: 'laya', prompts_routed: 4, prompts_labelled: 2, failures: 2 });
  expect(report.engine).toEqual({
    model: 'typed-decisions',
    prompts: 2,
    asked: 2,
    answered: 2,
    failed: 0,
    errors: {},
    not_asked: 0,
    without_prompt_text: 1,
    stopped_because: null,
    last_error: null,
  });
  // design: right on p1 (p4 has no answer): 1 of 1.
  expect(report.features.design).toEqual({ n: 1, coverage: 1, accuracy: 1, auroc: null });
  // p1: opus over the sonnet that failed (safe); p2: haiku under it (unsafe). The labels: p1 only, safe.
  expect(report.safety_with_engine).toBe(0.5);
  expect(report.safety_with_labels).toBe(1);
  expect(report.weak_part).toBe('engine');
});

it('counts failed prompts by code, keeps at most four in flight, and stops when the engine looks down', async () => {
  const lines: object[] = [];
  const prompts = Array.from({ length: 40 }, (_, i) => `prompt ${i}`);
  prompts.forEach((prompt, i) => lines.push({ source: 'routing', prompt_id: `p${i}`, prompt, labels: NO }));
  const log = writeLog(lines);

  const some = stubReader({}, new Set(['prompt 3', 'prompt 17']));
  const report = await evaluateLive(log, BARS, engine(some.reader));
  expect(report.engine).toMatchObject({
    prompts: 40,
    asked: 40,
    answered: 38,
    failed: 2,
    errors: { timeout: 2 },
    not_asked: 0,
    stopped_because: null,
  });
  expect(report.features.read_only.n).toBe(38);
  expect(some.mostInFlight()).toBe(4);
  // 2 of 40 is within the 5% the figures may leave out.
  expect(report.reasons.some((r) => r.includes('failed on'))).toBe(false);

  const down = stubReader({}, new Set(prompts.slice(10)));
  const stopped = await evaluateLive(log, BARS, engine(down.reader), { concurrency: 1 });
  expect(stopped.engine).toMatchObject({
    asked: 10 + STOP_AFTER_FAILURES,
    answered: 10,
    failed: STOP_AFTER_FAILURES,
    not_asked: 40 - 10 - STOP_AFTER_FAILURES,
  });
  expect(stopped.engine.stopped_because).toBe(
    `${STOP_AFTER_FAILURES} failures in a row, the last: laya: timeout (no answer within 5000 ms)`,
  );
  expect(stopped.verdict).toBe('NOT READY');
  expect(stopped.reasons).toContain(`the run stopped after 15 of 40 prompts: ${stopped.engine.stopped_because}`);
  expect(stopped.reasons).toContain(
    'laya failed on 5 of 40 prompts (timeout 5), more than 5%: the figures leave them out',
  );
});

it('reads the error code out of a failed reading', () => {
  expect(failureCode('laya: provider_error (HTTP 500: inference failed)')).toBe('provider_error');
  expect(failureCode('no provider could answer in time')).toBe('failed');
});
