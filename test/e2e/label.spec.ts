/**
 * `system1 label`, the labelling loop of `/system1:calibrate`, end to end with the built CLI: list what waits,
 * refuse a labels file with bad lines (writing nothing), apply good labels while a hook process appends to
 * the same log (no line lost, the log's mode kept), export for `calibrate`, and reach READY with `evaluate`
 * against a fake engine of known accuracy. `session-check` counts what `label list` lists.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { routeTier, type Tier } from '../../src/routing/routing-rule';
import { featureOracle, seededUniform } from '../fakes/feature-oracle';
import { LayaFake } from '../fakes/laya.fake';
import { eventually } from '../helpers/eventually';
import { type Json, requireBuild, Resources, ROOT, runCli, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
const FEATURES = ['read_only', 'design', 'review', 'specified'] as const;
type Labels = Record<(typeof FEATURES)[number], boolean>;
const TIERS: Tier[] = ['haiku', 'sonnet', 'opus'];
const RANK: Record<Tier, number> = { haiku: 0, sonnet: 1, opus: 2 };
const HOOK_LINES = 200;

let fake: LayaFake;
beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  await fake.start();
});
afterAll(() => fake.stop());

interface Fixture {
  log: string;
  truth: Map<string, Labels>;
  labels: Map<string, Labels & { tier: Tier }>;
}

/**
 * A routing log of 40 routed prompts waiting for labels, each with a spawn of a seeded tier and its outcome:
 * failed exactly when the rule on the true labels asks for a higher tier.
 */
function routingLog(dir: string): Fixture {
  const truth = new Map<string, Labels>();
  const labels = new Map<string, Labels & { tier: Tier }>();
  const lines: object[] = [];
  for (let i = 0; i < 40; i++) {
    const draw = (what: string) => seededUniform('label-loop', String(i), what);
    const truthHere: Labels = {
      read_only: draw('read_only') < 0.35,
      design: draw('design') < 0.3,
      review: draw('review') < 0.2,
      specified: draw('specified') < 0.5,
    };
    // Long prompts (as pasted logs make them) give each rewrite a window the hook can land appends in.
    const prompt = `Task ${i}: please look at the module named part-${i} and work through what it needs today\n${'log line of the failing build\n'.repeat(2000)}`;
    truth.set(prompt, truthHere);
    labels.set(`p${i}`, { ...truthHere, tier: routeTier(truthHere) });
    const ran = TIERS[Math.floor(draw('tier') * 3)];
    const failed = RANK[routeTier(truthHere)] > RANK[ran];
    const features = Object.fromEntries(
      FEATURES.map((f) => [f, { answer: truthHere[f], confidence: 0.9, calibrated: false }]),
    );
    lines.push({
      ts: '2026-11-01T00:00:00Z',
      source: 'routing',
      prompt_id: `p${i}`,
      prompt,
      provider: 'laya',
      features,
      tier: routeTier(truthHere),
      hinted: false,
    });
    lines.push({ source: 'spawn', prompt_id: `p${i}`, tool_use_id: `t${i}`, model: ran });
    lines.push({
      source: 'outcome',
      tool_use_id: `t${i}`,
      outcome: failed ? 'failed' : 'succeeded',
      resolved_model: `claude-${ran}-5`,
    });
  }
  const log = path.join(dir, 'routing.jsonl');
  writeFileSync(log, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  chmodSync(log, 0o640);
  return { log, truth, labels };
}

/**
 * A hook process appending routed prompts through the product's own append (routing-log.ts, as the
 * UserPromptSubmit hook does): 50 a few milliseconds apart; then, the moment it sees a rewrite's temp file
 * beside the log, 100 back to back (into the rewrite's window, between its read and its rename); then 49
 * more; the last only once `release` exists. It says on stdout when it saw the rewrite.
 */
function startHook(log: string, release: string) {
  const script = `
    const { appendLogLine } = require(${JSON.stringify(path.join(ROOT, 'dist', 'routing', 'routing-log.js'))});
    const { existsSync, readdirSync } = require('node:fs');
    const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    const append = (i) => appendLogLine(${JSON.stringify(log)}, { ts: new Date().toISOString(), source: 'routing', prompt_id: 'hook-' + i, prompt: 'appended by the hook ' + i, provider: 'laya', tier: 'sonnet' });
    const rewriting = () => readdirSync(${JSON.stringify(path.dirname(log))}).some((name) => name.endsWith('.rewrite'));
    let i = 0;
    for (; i < 50; i++, pause(2)) append(i);
    while (!rewriting()) if (existsSync(${JSON.stringify(release)})) process.exit(3);
    process.stdout.write('seen\\n');
    for (; i < 150; i++) append(i);
    for (; i < ${HOOK_LINES - 1}; i++, pause(2)) append(i);
    while (!existsSync(${JSON.stringify(release)})) pause(5);
    append(i);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exited, stderr: () => stderr, sawRewrite: () => stdout.includes('seen') };
}

const entriesOf = (log: string): Json[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);
const hookLinesIn = (log: string) => entriesOf(log).filter((e) => String(e.prompt_id).startsWith('hook-')).length;

function setUp(sandbox: Sandbox, log: string) {
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${fake.url.origin}"\n[routing]\nenabled = true\nmin_confidence = 0.6\nlog_file = "${log}"\n`,
  );
  return sandbox.env({ SYSTEM1_CONFIG: config });
}

it('lists, refuses bad lines writing nothing, applies beside a hook appending (no line lost), exports for calibrate, and evaluate says READY', async () => {
  const sandbox = resources.sandbox();
  const fixture = routingLog(sandbox.dir);
  const env = setUp(sandbox, fixture.log);

  // list: the 40 routed prompts, with ids, the prompt and the engine's reading; --limit gives a batch.
  const listed = await runCli(['label', 'list', '--limit', '10'], env);
  expect(listed.code).toBe(0);
  const list = JSON.parse(listed.stdout) as Json;
  expect(list.waiting).toBe(40);
  expect(list.entries).toHaveLength(10);
  expect(list.entries[0]).toMatchObject({
    id: 'p0',
    prompt: expect.stringContaining('Task 0:'),
    engine: expect.objectContaining({ read_only: expect.any(Boolean) }),
  });

  // A JSON file with two bad lines: both named by line, nothing written.
  const good = [...fixture.labels].map(([id, labels]) => ({ id, ...labels }));
  const bad = [
    ...good.slice(0, 5),
    { ...good[5], design: 'yes' },
    ...good.slice(6, 20),
    { ...good[20], id: 'p999' },
    ...good.slice(21),
  ];
  const badFile = path.join(sandbox.dir, 'bad-labels.json');
  writeFileSync(badFile, `[\n${bad.map((item) => `  ${JSON.stringify(item)}`).join(',\n')}\n]\n`);
  const before = readFileSync(fixture.log);
  const refused = await runCli(['label', 'apply', badFile], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`${badFile}:7: "design" must be true or false`);
  expect(refused.stderr).toContain(`${badFile}:22: unknown id "p999": no routed prompt in the log has it`);
  expect(refused.stderr).toContain('nothing written');
  expect(readFileSync(fixture.log).equals(before)).toBe(true);
  const empty = path.join(sandbox.dir, 'empty.jsonl');
  writeFileSync(empty, '\n');
  expect(await runCli(['label', 'apply', empty], env)).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`${empty} holds no labels`),
  });
  expect(readFileSync(fixture.log).equals(before)).toBe(true);

  // Good labels (JSONL), applied three times over while the hook appends 200 entries.
  const goodFile = path.join(sandbox.dir, 'labels.jsonl');
  writeFileSync(goodFile, good.map((item) => JSON.stringify(item)).join('\n') + '\n');
  const release = path.join(sandbox.dir, 'release-hook');
  const hook = startHook(fixture.log, release);
  await eventually(() => hookLinesIn(fixture.log) >= 50, 'the hook appended its first 50 lines');
  // Applied again (the same labels) until the hook has caught a rewrite in progress: at most 10 times.
  let applies = 0;
  while (!hook.sawRewrite() && applies < 10) {
    const applied = await runCli(['label', 'apply', goodFile], env);
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    expect(applied.stdout).toContain('Labelled 40 routed prompts');
    applies += 1;
  }
  // The race was run: the hook appended into a rewrite's window, and was still appending after it.
  expect(hook.sawRewrite()).toBe(true);
  expect(hookLinesIn(fixture.log)).toBeLessThan(HOOK_LINES);
  writeFileSync(release, '');
  expect(await hook.exited).toBe(0);
  expect(hook.stderr()).toBe('');

  const entries = entriesOf(fixture.log);
  const hookIds = entries.filter((e) => String(e.prompt_id).startsWith('hook-')).map((e) => e.prompt_id);
  expect(new Set(hookIds).size).toBe(HOOK_LINES);
  expect(hookIds).toHaveLength(HOOK_LINES);
  expect(entries).toHaveLength(120 + HOOK_LINES);
  for (const [id, labels] of fixture.labels) expect(entries.find((e) => e.prompt_id === id)!.labels).toEqual(labels);
  expect(statSync(fixture.log).mode & 0o777).toBe(0o640);
  expect(existsSync(`${fixture.log}.lock`)).toBe(false);

  // What waits now is the hook's 200: label list and session-check agree.
  expect((JSON.parse((await runCli(['label', 'list'], env)).stdout) as Json).waiting).toBe(HOOK_LINES);
  expect((await runCli(['session-check'], env)).stdout).toBe(
    `${HOOK_LINES} logged prompts are waiting for labels: /system1:calibrate fits System-1 to your work.\n`,
  );

  // export -> calibrate: five questions (four features, the tier), 40 answers each.
  const data = path.join(sandbox.dir, 'labelled.jsonl');
  const exported = await runCli(['label', 'export', data], env);
  expect(exported.code).toBe(0);
  expect(exported.stdout).toContain('Exported 200 calibration rows from 40 labelled prompts');
  expect(statSync(data).mode & 0o777).toBe(0o600);
  fake.answerChoice = featureOracle({ truth: fixture.truth, accuracy: {}, seed: 'label-loop' });
  const calibrated = await runCli(['calibrate', data, '--json'], env, 120_000);
  expect(calibrated.code).toBe(0);
  const report = JSON.parse(calibrated.stdout) as Json;
  expect(report.rows).toMatchObject({ examples: 200, answered: 200, failed: 0 });
  expect(report.questions.map((q: Json) => [q.question, q.n]).sort()).toEqual(
    [
      ['Does this task ask to design, plan, decide between options, research or define an architecture?', 40],
      ['Does this task ask to review or audit existing work?', 40],
      ['Does this task name the exact steps, files or plan item to work on?', 40],
      ['Does this task only look something up, check, count or answer, without changing files?', 40],
      ['Which Claude model tier does this task need?', 40],
    ].sort(),
  );

  // evaluate --live: the engine right on every feature, the rule safe: READY on the labels just applied.
  const failures = entries.filter((e) => e.source === 'outcome' && e.outcome === 'failed').length;
  const evaluated = await runCli(
    ['evaluate', '--live', '--provider', 'laya', '--min-failures', String(Math.min(failures, 5)), '--json'],
    env,
    120_000,
  );
  const evaluation = JSON.parse(evaluated.stdout) as Json;
  expect(evaluation).toMatchObject({ prompts_labelled: 40, failures, verdict: 'READY', reasons: [] });
  expect(evaluated.code).toBe(0);
}, 300_000);

it('refuses labels whose tier is not haiku, sonnet or opus (a capital, a model name, none at all), writing nothing', async () => {
  const sandbox = resources.sandbox();
  const log = path.join(sandbox.dir, 'routing.jsonl');
  const ids = ['p1', 'p2', 'p3', 'p4'];
  const routed = (id: string) => ({
    source: 'routing',
    prompt_id: id,
    prompt: `Task ${id}`,
    provider: 'laya',
    tier: 'sonnet',
  });
  writeFileSync(log, ids.map((id) => JSON.stringify(routed(id))).join('\n') + '\n');
  chmodSync(log, 0o640);
  const env = setUp(sandbox, log);
  const features = { read_only: false, design: false, review: false, specified: true };
  const file = path.join(sandbox.dir, 'labels.jsonl');
  const labels = [
    { id: 'p1', ...features, tier: 'sonnet' },
    { id: 'p2', ...features, tier: 'Opus' },
    { id: 'p3', ...features, tier: 'claude-opus-4' },
    { id: 'p4', ...features },
  ];
  writeFileSync(file, labels.map((label) => JSON.stringify(label)).join('\n') + '\n');
  const before = readFileSync(log);

  const refused = await runCli(['label', 'apply', file], env);
  for (const line of [2, 3, 4])
    expect(refused.stderr).toContain(`${file}:${line}: "tier" must be one of haiku, sonnet, opus`);
  expect(refused.stderr).toContain('nothing written');
  expect(refused.code).toBe(1);
  expect(readFileSync(log).equals(before)).toBe(true);
  expect((JSON.parse((await runCli(['label', 'list'], env)).stdout) as Json).waiting).toBe(ids.length);
});
