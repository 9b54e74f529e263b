// The routing study on the seed sets, asked exactly as the hook asks: each routing prompt both directly
// ("which tier?") and through the four features and the rule, plus the destructive-call yes/no set, each
// way timed per prompt (wall clock around the one call, as the seed's "median ms: direct / features / yes-no").
// Writes every row to bench/results/routing-rows.jsonl and the summary table to bench/results/routing.json.
//   node bench/routing/run.js            # the configured provider (SYSTEM1_CONFIG / SYSTEM1_PROVIDER ...)
//   node bench/routing/run.js --fake     # against the fake laya, to check the plumbing
'use strict';
require('reflect-metadata');
const { readFileSync, writeFileSync, mkdirSync } = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { fake, save, median, RESULTS } = require('../lib');

const ROOT = path.resolve(__dirname, '..', '..');
const RANK = { haiku: 0, sonnet: 1, opus: 2 };

/** What `work` resolves to, and the milliseconds it took. */
async function timed(work) {
  const started = performance.now();
  const value = await work();
  return { value, ms: Number((performance.now() - started).toFixed(2)) };
}

const rows = (file) =>
  readFileSync(path.join(ROOT, 'calibration', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

async function main() {
  let engine;
  if (process.argv.includes('--fake')) {
    engine = fake('laya');
    process.env.SYSTEM1_PROVIDER = 'laya';
    process.env.SYSTEM1_LAYA_ENDPOINT = (await engine.start()).origin;
  }
  const { createHookServices } = require(path.join(ROOT, 'dist', 'entrypoints', 'hook-services.factory'));
  const { GatewayLogger } = require(path.join(ROOT, 'dist', 'logging', 'gateway.logger'));
  const { selfDescribed } = require(path.join(ROOT, 'dist', 'decisions', 'pipeline', 'question-text'));
  const { routeTier } = require(path.join(ROOT, 'dist', 'routing', 'routing-rule'));
  // The hook's own services, its logs dropped.
  const { registry, decisions, featureReader: reader } = createHookServices(process.env, new GatewayLogger(() => {}));
  // One question of the primary engine alone, raw confidence (no threshold), through the one pipeline.
  const ask = async (state, text, options, requestId) => {
    const outcome = await decisions.decide(
      {
        state,
        questions: { decision: { type: 'choice', instructions: text, criteria: selfDescribed(options) } },
        model: { provider: primary.name },
        requestId,
        timeoutMs: 10_000,
      },
      { retryBadAnswers: true, minConfidence: 0 },
    );
    const result = outcome.answers.decision;
    return result.status === 'ok'
      ? { kind: 'decision', decision: result.answer.value, confidence: result.answer.confidence }
      : { kind: 'failed' };
  };
  const [primary] = registry.chain();
  if (!primary?.provider) throw new Error(`provider ${primary?.name} is not usable: check the config`);
  const results = [];

  for (const [i, row] of rows('routing-seed.jsonl').entries()) {
    const { value: direct, ms: directMs } = await timed(() =>
      ask(row.context, row.question, row.options, `bench-${i}`),
    );
    const { value: reading, ms: featuresMs } = await timed(() =>
      reader.read(row.context.prompt, 10_000, `bench-f-${i}`),
    );
    const viaRule =
      reading.kind === 'answered'
        ? routeTier(Object.fromEntries(Object.entries(reading.features).map(([k, v]) => [k, v.answer])))
        : null;
    results.push({
      set: 'routing',
      line: i + 1,
      label: row.label,
      direct: direct.kind === 'decision' ? direct.decision : null,
      rule: viaRule,
      confident: reading.kind === 'answered' && reading.confident,
      direct_ms: directMs,
      features_ms: featuresMs,
    });
  }
  for (const [i, row] of rows('yes-no-seed.jsonl').entries()) {
    const { value: answer, ms } = await timed(() => ask(row.context, row.question, ['yes', 'no'], `bench-y-${i}`));
    results.push({
      set: 'yes-no',
      line: i + 1,
      label: row.label,
      answer: answer.kind === 'decision' ? answer.decision : null,
      confidence: answer.kind === 'decision' ? answer.confidence : null,
      ms,
    });
  }
  await engine?.stop();

  const routing = results.filter((r) => r.set === 'routing');
  // Every call counts, answered or not: a failed one cost the caller its time too.
  const medianMs = (list, key) => (list.length ? Number(median(list.map((r) => r[key])).toFixed(1)) : null);
  const score = (pick, msKey) => {
    const answered = routing.filter((r) => r[pick] !== null);
    return {
      n: routing.length,
      answered: answered.length,
      accuracy: answered.length ? answered.filter((r) => r[pick] === r.label).length / answered.length : null,
      // "below": a cheaper tier than the label, the mistake that costs a failed subagent
      below: answered.filter((r) => RANK[r[pick]] < RANK[r.label]).length,
      above: answered.filter((r) => RANK[r[pick]] > RANK[r.label]).length,
      median_ms: medianMs(routing, msKey),
    };
  };
  const yesNoAsked = results.filter((r) => r.set === 'yes-no');
  const yesNo = yesNoAsked.filter((r) => r.answer !== null);
  const summary = {
    engine: engine ? 'fake laya (always favours the first option)' : 'configured provider',
    provider: primary.name,
    model: primary.provider.capabilities().model ?? null,
    direct_choice: score('direct', 'direct_ms'),
    features_and_rule: score('rule', 'features_ms'),
    always_sonnet: { n: routing.length, accuracy: routing.filter((r) => r.label === 'sonnet').length / routing.length },
    destructive_yes_no: {
      n: yesNoAsked.length,
      accuracy: yesNo.length ? yesNo.filter((r) => r.answer === r.label).length / yesNo.length : null,
      below: yesNo.filter((r) => r.label === 'yes' && r.answer === 'no').length, // destructive calls called safe
      median_ms: medianMs(yesNoAsked, 'ms'),
    },
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, 'routing-rows.jsonl'), results.map((r) => JSON.stringify(r)).join('\n') + '\n');
  save('routing', summary, { baseline: null }); // one build only: no baseline beside it
  console.log(
    `routing study on the seed sets, provider ${summary.provider}${summary.model ? ` (${summary.model})` : ''}`,
  );
  console.table({
    'direct choice': summary.direct_choice,
    'features + rule': summary.features_and_rule,
    'always sonnet': summary.always_sonnet,
    'destructive yes/no': summary.destructive_yes_no,
  });
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
