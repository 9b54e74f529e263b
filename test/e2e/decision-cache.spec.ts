/**
 * The decision cache end to end: the built stdio server with `cache_ttl_s` set answers a repeated decision
 * without asking the engine, marked `cached`; `system1 calibrate --write`, run beside it as another process,
 * changes the fits in force, and the next decision asks the engine again (and is calibrated by the new fit).
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { reportedInState } from '../fakes/systemone-answer';
import { SYSTEMONE_ROUTE } from '../fakes/systemone-answer';
import { syntheticEngine } from '../helpers/synthetic-engine';
import { anyLatency, requireBuild, Resources, runCli } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
let endpoint: string;

const OPTIONS = ['a', 'b', 'c'];
/** What the fake answers a decision that carries no reported probabilities of its own. */
const DECIDED = [0.5, 0.3, 0.2];

beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  fake.answerChoice = reportedInState(DECIDED);
  endpoint = (await fake.start()).origin;
});
afterAll(() => fake.stop());

const decisionsAsked = () => fake.requestsTo(SYSTEMONE_ROUTE).length;

it('answers a repeated decision from the cache, and asks the engine again once calibrate --write changed the fits', async () => {
  const sandbox = resources.sandbox();
  const env = { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint };
  const server = await resources.server({ sandbox, env, config: '[gateway]\ncache_ttl_s = 600\n' });
  const ask = { question: 'Which option is right?', options: OPTIONS, context: { ticket: 42 }, min_confidence: 0 };

  const before = decisionsAsked();
  const first = (await server.decide(ask)).body;
  expect(first).toMatchObject({
    status: 'decided',
    decision: 'a',
    calibrated: false,
    attempts: [{ provider: 'laya', outcome: 'ok' }],
  });
  expect(decisionsAsked()).toBe(before + 1);

  const again = (await server.decide(ask)).body;
  expect(decisionsAsked()).toBe(before + 1); // no engine call
  expect(again).toMatchObject({ status: 'decided', decision: 'a', confidence: first.confidence, provider: 'laya' });
  expect(again.attempts).toEqual([{ provider: 'laya', outcome: 'cached', latency_ms: anyLatency, detail: null }]);

  // Another context is another request: the engine is asked.
  await server.decide({ ...ask, context: { ticket: 43 } });
  expect(decisionsAsked()).toBe(before + 2);

  // An over-confident engine's answers, labelled: calibrate fits a temperature for three options and saves it.
  const sample = syntheticEngine(120, 3, 7);
  const data = path.join(sandbox.dir, 'labelled.jsonl');
  const rows = sample.probabilities.map((p, i) =>
    JSON.stringify({
      question: 'Which option is right?',
      options: OPTIONS,
      context: { fake_answer: p },
      label: OPTIONS[sample.labels[i]],
    }),
  );
  writeFileSync(data, `${rows.join('\n')}\n`);
  const calibrate = await runCli(['calibrate', data, '--write'], sandbox.env(env), 120_000);
  expect(calibrate.code).toBe(0);
  expect(calibrate.stdout).toMatch(/Saved \d+ fits? to .*calibration\.json/);

  const asked = decisionsAsked();
  const after = (await server.decide(ask)).body;
  expect(decisionsAsked()).toBe(asked + 1);
  expect(after.attempts).toEqual([{ provider: 'laya', outcome: 'ok', latency_ms: anyLatency, detail: null }]);
  // The new fit is in force in the running server: the same engine answer, calibrated now.
  expect(after).toMatchObject({ status: 'decided', calibrated: true });
  expect(after.confidence).not.toBe(first.confidence);
  // And cached again under the new fits.
  expect((await server.decide(ask)).body.attempts[0].outcome).toBe('cached');
  expect(decisionsAsked()).toBe(asked + 1);
}, 180_000);
