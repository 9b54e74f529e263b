/**
 * The decision cache through the in-process pipeline, over a scripted engine that counts its calls: what is
 * kept (complete answers only), under which key (everything the answer depends on), for how long, within
 * which bounds, and what empties it.
 */
import type { TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CalibrationService } from '../../../src/calibration/calibration.service';
import type { LoadedConfig } from '../../../src/config/config.loader';
import { ProviderError } from '../../../src/decisions/errors/decision-error';
import { DecisionCache } from '../../../src/decisions/pipeline/decision-cache.service';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import type { DecisionPolicy, DecisionRequest } from '../../../src/decisions/questions/decision.types';
import { questionResults } from '../../../src/decisions/questions/question-results';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { gatewayApp } from '../../helpers/gateway-app';
import { type DecisionBatch, ScriptedEngine, ScriptedEngineModule } from '../../helpers/scripted.provider';

let calls: DecisionBatch[] = [];
/** What the engine answers: by default the first option at 0.9, or as the state says. */
let answerWith: (batch: DecisionBatch) => Record<string, unknown> = (batch) =>
  Object.fromEntries(
    batch.questions.map((question) => [question.id, { decision: question.options[0], confidence: 0.9 }]),
  );
const apps: TestingModule[] = [];
let install: string;

beforeEach(() => {
  calls = [];
  install = mkdtempSync(path.join(tmpdir(), 'system1-cache-'));
  ScriptedEngine.script = async (batch) => {
    calls.push(batch);
    return answerWith(batch);
  };
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  ScriptedEngine.script = async () => ({});
  answerWith = (batch) =>
    Object.fromEntries(
      batch.questions.map((question) => [question.id, { decision: question.options[0], confidence: 0.9 }]),
    );
  rmSync(install, { recursive: true, force: true });
});

async function gateway(gatewayKeys: string): Promise<TestingModule> {
  const app = await gatewayApp({
    toml: `[gateway]\nprovider = "scripted"\n${gatewayKeys}\n`,
    imports: [ScriptedEngineModule],
    env: { SYSTEM1_INSTALL_DIR: install },
  });
  apps.push(app);
  return app;
}

const question = (text = 'Rerun or block?', options = ['rerun', 'block']): DecisionRequest['questions'] => ({
  q: { type: 'choice', instructions: text, criteria: Object.fromEntries(options.map((option) => [option, null])) },
});
const REQUEST: DecisionRequest = { state: { ticket: 42 }, questions: question() };

describe('the decision cache', () => {
  it('is off by default: the same request twice asks the engine twice', async () => {
    const decisions = (await gateway('')).get(DecisionService);
    await decisions.decide(REQUEST);
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(2);
  });

  it('answers an identical request within the TTL without an engine call, marked cached on every surface', async () => {
    const app = await gateway('cache_ttl_s = 60');
    const decisions = app.get(DecisionService);
    const first = await decisions.decide(REQUEST);
    const second = await decisions.decide(REQUEST);
    expect(calls).toHaveLength(1);
    expect(second.answers).toEqual(first.answers);
    expect(second.attempts).toEqual([{ provider: 'scripted', outcome: 'cached', latencyMs: 0 }]);
    expect(second.executed).toEqual(first.executed);
    expect(questionResults(second).meta.cached).toBe(true);
    expect(questionResults(first).meta.cached).toBeUndefined();

    const decide = app.get(DecideService);
    await decide.decide({ question: 'Go?' });
    const cached = await decide.decide({ question: 'Go?' });
    expect(cached.attempts).toEqual([{ provider: 'scripted', outcome: 'cached', latency_ms: 0, detail: null }]);
  });

  it('keys on everything the answer depends on: the state, the question text, its options and their order', async () => {
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    await decisions.decide(REQUEST);
    const variants: DecisionRequest[] = [
      { ...REQUEST, state: { ticket: 43 } },
      { ...REQUEST, state: undefined },
      { ...REQUEST, questions: question('Rerun or block now?') },
      { ...REQUEST, questions: question('Rerun or block?', ['rerun', 'block', 'wait']) },
      { ...REQUEST, questions: question('Rerun or block?', ['block', 'rerun']) },
    ];
    for (const variant of variants) await decisions.decide(variant);
    expect(calls).toHaveLength(1 + variants.length);
    // Each was asked once, and is found again.
    for (const variant of variants) await decisions.decide(variant);
    expect(calls).toHaveLength(1 + variants.length);
  });

  it('never hands one request the answer of another: an engine that answers by the state is always read right', async () => {
    answerWith = (batch) => ({ q: { decision: (batch.state as { pick: string }).pick, confidence: 0.8 } });
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    for (let round = 0; round < 2; round++) {
      for (const pick of ['rerun', 'block']) {
        const outcome = await decisions.decide({ state: { pick }, questions: question() });
        expect(outcome.answers.q).toMatchObject({ status: 'ok', answer: { value: pick } });
      }
    }
    expect(calls).toHaveLength(2);
  });

  it('applies the threshold of each call to a cached answer', async () => {
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    expect((await decisions.decide({ ...REQUEST, minConfidence: 0.5 })).answers.q).toMatchObject({
      belowThreshold: false,
    });
    expect((await decisions.decide({ ...REQUEST, minConfidence: 0.95 })).answers.q).toMatchObject({
      belowThreshold: true,
    });
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['an engine error', () => Promise.reject(new ProviderError('engine down'))],
    ['an unreadable answer', async () => ({ q: { decision: 'merge anyway', confidence: 0.9 } })],
    ['an abstention', async () => ({ q: { abstain: true, rationale: 'cannot tell' } })],
  ])('never keeps %s', async (_name, script) => {
    ScriptedEngine.script = async (batch) => {
      calls.push(batch);
      return script();
    };
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    await decisions.decide(REQUEST, { cooldown: false });
    await decisions.decide(REQUEST, { cooldown: false });
    expect(calls).toHaveLength(2);
    expect(apps[0].get(DecisionCache).size).toBe(0);
  });

  it('forgets an answer after the TTL', async () => {
    const decisions = (await gateway('cache_ttl_s = 0.05')).get(DecisionService);
    await decisions.decide(REQUEST);
    await new Promise((resolve) => setTimeout(resolve, 120));
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(2);
  });

  it('keeps at most cache_max_entries, the least recently used going first', async () => {
    const decisions = (await gateway('cache_ttl_s = 60\ncache_max_entries = 2')).get(DecisionService);
    const ticket = (n: number): DecisionRequest => ({ ...REQUEST, state: { ticket: n } });
    for (const n of [1, 2, 3]) await decisions.decide(ticket(n));
    expect(apps[0].get(DecisionCache).size).toBe(2);
    await decisions.decide(ticket(3));
    await decisions.decide(ticket(2));
    expect(calls).toHaveLength(3);
    await decisions.decide(ticket(1)); // pushed out by the third
    expect(calls).toHaveLength(4);
  });

  it('holds its bytes under cache_max_bytes, however large the requests a caller sends', async () => {
    const decisions = (await gateway('cache_ttl_s = 60\ncache_max_bytes = 65536')).get(DecisionService);
    const cache = apps[0].get(DecisionCache);
    // Rationales of 3 KiB: each reply is a few KiB, the bound holds a handful, and no more are kept.
    answerWith = (batch) => ({
      q: { decision: batch.questions[0].options[0], confidence: 0.9, rationale: 'x'.repeat(3_000) },
    });
    for (let n = 0; n < 200; n++) await decisions.decide({ ...REQUEST, state: { ticket: n } });
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(40);
    // One reply larger than a sixteenth of the bound is not kept at all.
    answerWith = (batch) => ({
      q: { decision: batch.questions[0].options[0], confidence: 0.9, rationale: 'x'.repeat(8_000) },
    });
    await decisions.decide({ ...REQUEST, state: { big: true } });
    await decisions.decide({ ...REQUEST, state: { big: true } });
    expect(calls.filter((batch) => (batch.state as { big?: boolean }).big)).toHaveLength(2);
  });

  // serve-http's authenticated callers: a scope each, set by the server, never by the request.
  it("keeps the answers of each caller scope apart: no caller is answered from, or can probe, another's", async () => {
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    await decisions.decide(REQUEST, { cacheScope: 'alice' });
    await decisions.decide(REQUEST, { cacheScope: 'bob' });
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(3);
    for (const cacheScope of ['alice', 'bob', undefined]) {
      expect((await decisions.decide(REQUEST, { cacheScope })).attempts[0].outcome).toBe('cached');
    }
    expect(calls).toHaveLength(3);
  });

  it("lets no caller scope flush out another's answers: past half the entries, a scope loses its own oldest", async () => {
    const app = await gateway('cache_ttl_s = 60\ncache_max_entries = 10');
    const decisions = app.get(DecisionService);
    const cache = app.get(DecisionCache);
    const ticket = (n: number): DecisionRequest => ({ ...REQUEST, state: { ticket: n } });
    for (const n of [1, 2, 3]) await decisions.decide(ticket(n), { cacheScope: 'quiet' });
    for (let n = 100; n < 400; n++) await decisions.decide(ticket(n), { cacheScope: 'runaway' });
    expect(cache.heldBy('runaway')).toBe(5);
    expect(cache.heldBy('quiet')).toBe(3);
    const asked = calls.length;
    for (const n of [1, 2, 3])
      expect((await decisions.decide(ticket(n), { cacheScope: 'quiet' })).attempts[0].outcome).toBe('cached');
    // The runaway's most recent answers are its own to use.
    expect((await decisions.decide(ticket(399), { cacheScope: 'runaway' })).attempts[0].outcome).toBe('cached');
    expect(calls.length).toBe(asked);
  });

  it('is neither read nor filled by calibrate, which measures the engine live', async () => {
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    const live: DecisionPolicy = { cache: false, calibrate: false };
    await decisions.decide(REQUEST);
    await decisions.decide(REQUEST, live);
    expect(calls).toHaveLength(2); // not read
    await decisions.decide({ ...REQUEST, state: { ticket: 7 } }, live);
    await decisions.decide({ ...REQUEST, state: { ticket: 7 } });
    expect(calls).toHaveLength(4); // not filled
    await decisions.decide({ ...REQUEST, state: { ticket: 7 } });
    expect(calls).toHaveLength(4);
  });

  // test/e2e/decision-cache.spec.ts runs calibrate --write itself beside a server, and sees the new fit applied.
  it('is emptied when the fits in force change (the user calibration file written by calibrate --write)', async () => {
    const decisions = (await gateway('cache_ttl_s = 60')).get(DecisionService);
    await decisions.decide(REQUEST);
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(1);
    const fit = {
      provider: 'scripted',
      model: null,
      option_count: 2,
      temperature: 2,
      n: 500,
      at_bound: false,
      trusted: true,
      source: 'test',
      fitted_at: '2026-01-01T00:00:00Z',
    };
    writeFileSync(path.join(install, 'calibration.json'), JSON.stringify({ version: 1, fits: [fit] }));
    // What calibrate --write waits for after saving, so that every decision after it sees the new fits.
    await apps[0].get(CalibrationService).settled();
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(2);
    await decisions.decide(REQUEST);
    expect(calls).toHaveLength(2);
  });
});

describe('the memory the decision cache holds', () => {
  // What cache_max_bytes bounds is memory. An engine's reply is kept as the engine wrote it, and JSON that
  // parses into many small objects (an answer carrying `[{},{},...]`: 3 bytes each as text, some 70 as
  // objects) weighed a twentieth of what it held.
  it('stays near cache_max_bytes however the kept replies are built', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const maxBytes = 1024 * 1024;
    const config = { gateway: { cache_ttl_s: 60, cache_max_entries: 10_000, cache_max_bytes: maxBytes } };
    const cache = new DecisionCache(config as unknown as LoadedConfig);
    const ok = { q: { status: 'ok' } } as unknown as Parameters<DecisionCache['keep']>[2];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 0; n < 64; n++) {
      // About 60 KB of text each, under a sixteenth of the bound: every one is kept until the bound pushes it out.
      const answer = { type: 'choice', choice: 'a', probabilities: { a: 0.6, b: 0.4 }, trace: [] as object[] };
      for (let i = 0; i < 20_000; i++) answer.trace.push({});
      cache.keep(
        `key-${n}`,
        { reply: { answers: { q: answer } }, stray: { count: 0, first: [] }, model: undefined, notes: [] },
        ok,
      );
    }
    expect(cache.size).toBeGreaterThan(8);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(held).toBeLessThan(4 * maxBytes);
    // What is kept reads back as it was given.
    expect(cache.get('key-63')?.reply.answers.q).toMatchObject({ choice: 'a', trace: expect.any(Array) });
  });
});
