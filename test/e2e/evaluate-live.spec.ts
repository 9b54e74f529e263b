/**
 * `system1 evaluate --live`: a candidate engine re-asked the four routing features of prompts labelled
 * while another engine was routing, against a fake laya whose accuracy per feature is known.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { featureOracle, seededUniform } from '../fakes/feature-oracle';
import { LayaFake } from '../fakes/laya.fake';
import { routeTier, type Tier } from '../../src/routing/routing-rule';
import { requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
const FEATURES = ['read_only', 'design', 'review', 'specified'] as const;
type Labels = Record<(typeof FEATURES)[number], boolean>;
const RANK: Record<Tier, number> = { haiku: 0, sonnet: 1, opus: 2 };
const TIERS: Tier[] = ['haiku', 'sonnet', 'opus'];
/** The engine under test: strong on three features, weak on `design`. */
const ACCURACY = { read_only: 0.9, design: 0.6, review: 0.95, specified: 0.95 };
const SEED = 'evaluate-live';

interface Fixture {
  file: string;
  truth: Map<string, Labels>;
  prompts: string[];
  /** Outcome-labelled failures in the log. */
  failures: number;
}

/**
 * A routing log of `n` teacher-labelled prompts that Von routed (right on every feature), each with a spawn
 * of a seeded tier: it failed exactly when the rule on the teacher's labels asks for a higher tier, so the
 * rule is safe with the labels and any unsafe failure is the engine's doing.
 */
function routingLog(dir: string, n: number): Fixture {
  const truth = new Map<string, Labels>();
  const prompts: string[] = [];
  const lines: object[] = [];
  let failures = 0;
  for (let i = 0; i < n; i++) {
    const draw = (what: string) => seededUniform('fixture', String(i), what);
    const labels: Labels = {
      read_only: draw('read_only') < 0.35,
      design: draw('design') < 0.3,
      review: draw('review') < 0.2,
      specified: draw('specified') < 0.5,
    };
    const prompt = `Task ${i}: please look at the module named part-${i} and work through what it needs today`;
    truth.set(prompt, labels);
    prompts.push(prompt);
    const features = Object.fromEntries(
      FEATURES.map((f) => [f, { answer: labels[f], confidence: 0.9, calibrated: false }]),
    );
    const ran = TIERS[Math.floor(draw('tier') * 3)];
    const failed = RANK[routeTier(labels)] > RANK[ran];
    if (failed) failures += 1;
    lines.push({
      ts: '2026-10-01T00:00:00Z',
      source: 'routing',
      prompt_id: `p${i}`,
      prompt,
      provider: 'von',
      features,
      tier: routeTier(labels),
      hinted: false,
      labels,
    });
    lines.push({ source: 'spawn', prompt_id: `p${i}`, tool_use_id: `t${i}`, model: ran });
    lines.push({
      source: 'outcome',
      tool_use_id: `t${i}`,
      outcome: failed ? 'failed' : 'succeeded',
      resolved_model: `claude-${ran}-5`,
    });
  }
  // An unlabelled routed prompt without a spawn: nothing to score it against, so it is not asked.
  lines.push({
    source: 'routing',
    prompt_id: 'unlabelled',
    prompt: 'Something nobody labelled yet, about the build and its caches',
    provider: 'von',
    features: {},
    tier: 'sonnet',
  });
  const file = path.join(dir, 'routing.jsonl');
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return { file, truth, prompts, failures };
}

/** Three standard errors of a share `p` measured on `n` answers: the sampling error the test allows. */
const sampling = (p: number, n: number) => 3 * Math.sqrt((p * (1 - p)) / n);

let fake: LayaFake;
beforeAll(() => requireBuild());
beforeEach(async () => {
  fake = new LayaFake();
  await fake.start();
});
afterEach(() => fake.stop());

function setUp(sandbox: Sandbox, endpoint = fake.url.origin) {
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "von"\n[providers.von]\nendpoint = "http://127.0.0.1:9"\n[providers.laya]\nendpoint = "${endpoint}"\n[routing]\nmin_confidence = 0.6\n`,
  );
  return sandbox.env({ SYSTEM1_CONFIG: config });
}

it('re-asks a candidate engine on prompts labelled under another, reports its accuracy per feature within sampling error, and is NOT READY for the weak feature', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 400);
  fake.answerChoice = featureOracle({ truth: fixture.truth, accuracy: ACCURACY, seed: SEED });
  const env = setUp(sandbox);

  const result = await runCli(['evaluate', '--live', '--provider', 'laya', '--log', fixture.file, '--json'], env);
  expect(result.code).toBe(1); // NOT READY
  const report = JSON.parse(result.stdout);
  expect(report).toMatchObject({
    mode: 'live',
    provider: 'laya',
    threshold: 0.6,
    prompts_labelled: 400,
    verdict: 'NOT READY',
  });
  expect(report.engine).toMatchObject({
    asked: 400,
    answered: 400,
    failed: 0,
    errors: {},
    not_asked: 0,
    stopped_because: null,
  });
  // Every labelled prompt asked once, in one pass for the four features, as the hook asks.
  const calls = fake.requestsTo('/v1/systemone');
  expect(calls).toHaveLength(400);
  expect(new Set(calls.map((call) => (call.body as { state: { prompt: string } }).state.prompt))).toEqual(
    new Set(fixture.prompts),
  );

  for (const feature of FEATURES) {
    const figures = report.features[feature];
    expect(figures).toMatchObject({ n: 400, coverage: 1 });
    expect(Math.abs(figures.accuracy - ACCURACY[feature])).toBeLessThan(sampling(ACCURACY[feature], 400));
    expect(figures.auroc).toBeGreaterThan(0.5); // the fake is surer when right
  }
  // Only the weak feature is below the bar.
  expect(report.reasons.filter((reason: string) => /accuracy/.test(reason))).toEqual([
    expect.stringMatching(/^design: accuracy 0\.\d\d at 0\.6 is below 0\.85$/),
  ]);
  // The rule is safe with the teacher's labels, so what is unsafe is the engine.
  expect(report.failures).toBe(fixture.failures);
  expect(report.safety_with_labels).toBe(1);
  expect(report.safety_with_engine).toBeLessThan(0.95);
  expect(report.weak_part).toBe('engine');
  // Progress went to stderr, and stdout holds the JSON document alone.
  expect(result.stderr).toMatch(/400\/400/);
});

it('says which mode it ran in: the log alone scores only what the candidate answered at the time', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 60);
  fake.answerChoice = featureOracle({ truth: fixture.truth, accuracy: ACCURACY, seed: SEED });
  const env = setUp(sandbox);

  const fromLog = await runCli(['evaluate', '--provider', 'laya', '--log', fixture.file, '--json'], env);
  expect(JSON.parse(fromLog.stdout)).toMatchObject({
    mode: 'log',
    provider: 'laya',
    prompts_routed: 0,
    prompts_labelled: 0,
  });
  expect(fake.requestsTo('/v1/systemone')).toHaveLength(0);

  const live = await runCli(['evaluate', '--live', '--provider', 'laya', '--log', fixture.file], env);
  expect(live.stdout).toMatch(/^evaluate \(live\): asked laya .*60 prompts/m);
  expect(live.stdout).toMatch(/^NOT READY$/m);
  const human = await runCli(['evaluate', '--provider', 'laya', '--log', fixture.file], env);
  expect(human.stdout).toMatch(/^evaluate \(from the log\): /m);
});

it('counts engine errors on some prompts and carries on, without asking the fallback', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 100);
  fake.answerChoice = featureOracle({ truth: fixture.truth, accuracy: ACCURACY, seed: SEED });
  // Every tenth prompt but the first gets a 500.
  const failing = new Set(fixture.prompts.filter((_, i) => i > 0 && i % 10 === 0));
  fake.chooseFault = (request) =>
    failing.has((request.body as { state: { prompt: string } }).state.prompt) ? 'status-500' : 'none';
  const backup = new LayaFake();
  await backup.start();
  try {
    const config = sandbox.writeConfig(
      `[gateway]\nprovider = "laya"\nfallback = ["backup"]\n[providers.laya]\nendpoint = "${fake.url.origin}"\n[providers.backup]\ntype = "laya"\nendpoint = "${backup.url.origin}"\n`,
    );
    const result = await runCli(
      ['evaluate', '--live', '--log', fixture.file, '--json'],
      sandbox.env({ SYSTEM1_CONFIG: config }),
    );
    const report = JSON.parse(result.stdout);
    expect(report.engine).toMatchObject({
      asked: 100,
      answered: 91,
      failed: 9,
      errors: { provider_error: 9 },
      not_asked: 0,
      stopped_because: null,
    });
    expect(report.features.design.n).toBe(91);
    expect(report.reasons).toContain(
      'laya failed on 9 of 100 prompts (provider_error 9), more than 5%: the figures leave them out',
    );
    expect(backup.requestsTo('/v1/systemone')).toHaveLength(0);
  } finally {
    await backup.stop();
  }
});

it('says so and exits 1 when the engine under test is down at the start, asking nothing', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 20);
  const endpoint = fake.url.origin;
  await fake.stop();
  const env = setUp(sandbox, endpoint);

  const result = await runCli(['evaluate', '--live', '--provider', 'laya', '--log', fixture.file, '--json'], env);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/system1 evaluate: laya is not answering: .*connection refused/);

  const unknown = await runCli(['evaluate', '--live', '--provider', 'nosuch', '--log', fixture.file], env);
  expect(unknown).toMatchObject({ code: 1, stdout: '' });
  expect(unknown.stderr).toMatch(/system1 evaluate: no provider is named "nosuch"/);
});

it('stops when every prompt fails though the engine says it is up, and says it answered none', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 40);
  fake.fault = 'status-500'; // decisions only: its health route still answers
  const env = setUp(sandbox);

  const result = await runCli(['evaluate', '--live', '--provider', 'laya', '--log', fixture.file, '--json'], env);
  expect(result.code).toBe(1);
  const report = JSON.parse(result.stdout);
  expect(report.engine).toMatchObject({
    prompts: 40,
    answered: 0,
    stopped_because: expect.stringMatching(/^5 failures in a row, the last: laya: provider_error/),
  });
  expect(report.engine.not_asked).toBeGreaterThan(0);
  expect(result.stderr).toMatch(
    /system1 evaluate: laya answered none of the \d+ prompts asked \(the last: laya: provider_error/,
  );
});

it('asks the configured primary when no provider is named', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir, 30);
  fake.answerChoice = featureOracle({ truth: fixture.truth, accuracy: {}, seed: SEED });
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\nfallback = ["von"]\n[providers.laya]\nendpoint = "${fake.url.origin}"\n[providers.von]\nendpoint = "http://127.0.0.1:9"\n`,
  );

  const result = await runCli(
    ['evaluate', '--live', '--log', fixture.file, '--json', '--min-failures', '1'],
    sandbox.env({ SYSTEM1_CONFIG: config }),
  );
  const report = JSON.parse(result.stdout);
  expect(report).toMatchObject({ mode: 'live', provider: 'laya' });
  for (const feature of FEATURES) expect(report.features[feature].accuracy).toBe(1);
});
