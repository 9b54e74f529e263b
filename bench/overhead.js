// Overhead: decisions through the gateway's stdio server against a fake engine with a fixed 20 ms latency,
// beside direct HTTP calls to the same fake and the same calls through a minimal SDK-only stdio server,
// interleaved in one run. The gateway's overhead is its latency minus the direct call's, per percentile.
'use strict';
const path = require('node:path');
const {
  fake,
  isolatedEnv,
  gateway,
  connect,
  summary,
  drive,
  save,
  ms,
  median,
  sized,
  BASELINE_MAIN,
} = require('./lib');

const ENGINE_MS = 20;
const ROUNDS = sized(7, 2);
const QUESTION = 'Rerun the flaky pipeline or block the merge?';
const OPTIONS = ['rerun the pipeline', 'block the merge'];

async function main() {
  const engine = fake('laya');
  engine.latencyMs = () => ENGINE_MS;
  const url = (await engine.start()).origin;
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: url, SYSTEM1_MIN_CONFIDENCE: '0' });
  const gw = await gateway(env);
  const baseline = BASELINE_MAIN && (await gateway(env, BASELINE_MAIN));
  const minimal = await connect([path.join(__dirname, 'minimal-server.js')], { ...env, ENGINE_URL: url });
  const minimalHttp = await connect([path.join(__dirname, 'minimal-server.js')], {
    ...env,
    ENGINE_URL: url,
    MINIMAL_CLIENT: 'http',
  });
  // The floor on the SDK the gateway runs on (2.x, zod 4), forwarding with node:http and a kept-alive socket.
  const minimal2x = await connect([path.join(__dirname, 'minimal-server-2x.js')], { ...env, ENGINE_URL: url });
  const body = JSON.stringify({
    model: 'typed-decisions',
    state: {},
    questions: { decision: { type: 'choice', instructions: QUESTION, criteria: OPTIONS } },
  });
  const ways = {
    direct: () =>
      fetch(`${url}/v1/systemone`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        (r) => r.json(),
      ),
    minimal: () => minimal.client.callTool({ name: 'decide', arguments: { question: QUESTION, options: OPTIONS } }),
    minimal_http: () =>
      minimalHttp.client.callTool({ name: 'decide', arguments: { question: QUESTION, options: OPTIONS } }),
    minimal_2x: () =>
      minimal2x.client.callTool({ name: 'decide', arguments: { question: QUESTION, options: OPTIONS } }),
    gateway: () => gw.client.callTool({ name: 'system1_decide', arguments: { question: QUESTION, options: OPTIONS } }),
    ...(baseline && {
      baseline: () =>
        baseline.client.callTool({ name: 'system1_decide', arguments: { question: QUESTION, options: OPTIONS } }),
    }),
  };
  const names = Object.keys(ways);
  for (const run of Object.values(ways)) await drive(50, 4, run); // warm-up

  const result = { engine_latency_ms: ENGINE_MS, rounds: ROUNDS, levels: {} };
  for (const [inFlight, perRound] of [
    [1, sized(100, 20)],
    // Four in flight: an agent's few parallel tool calls, where issue 40's latency target is set.
    [4, sized(200, 40)],
    [64, sized(640, 128)],
  ]) {
    result.levels[inFlight] = { calls_per_round: perRound };
    // Each round's percentiles, then the median over rounds: a busy minute on this shared machine moves one
    // round, not the figure.
    const rounds = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(ways)) rounds[name].push(summary(await drive(perRound, inFlight, run)));
    }
    const stats = Object.fromEntries(
      Object.entries(rounds).map(([name, list]) => [
        name,
        {
          n: list.reduce((sum, r) => sum + r.n, 0),
          ...Object.fromEntries(['p50', 'p90', 'p99'].map((p) => [p, median(list.map((r) => r[p]))])),
        },
      ]),
    );
    const over = (name) => Object.fromEntries(['p50', 'p90', 'p99'].map((p) => [p, stats[name][p] - stats.direct[p]]));
    const ratio = (name, floor) =>
      Object.fromEntries(
        ['p50', 'p99'].map((p) => [p, (stats[name][p] - stats.direct[p]) / (stats[floor][p] - stats.direct[p])]),
      );
    Object.assign(result.levels[inFlight], {
      ...stats,
      overhead_gateway: over('gateway'),
      overhead_minimal: over('minimal'),
      overhead_minimal_http: over('minimal_http'),
      overhead_minimal_2x: over('minimal_2x'),
      // The gateway's overhead over the SDK-only floor's, with each floor's client (fetch, node:http kept alive).
      ratio_to_minimal: ratio('gateway', 'minimal'),
      ratio_to_minimal_http: ratio('gateway', 'minimal_http'),
      ratio_to_minimal_2x: ratio('gateway', 'minimal_2x'),
      // Latency over the 2.x floor's, per percentile: steadier than a ratio of two overheads near zero.
      latency_ratio_to_minimal_2x: Object.fromEntries(
        ['p50', 'p99'].map((p) => [p, stats.gateway[p] / stats.minimal_2x[p]]),
      ),
      ...(baseline && { overhead_baseline: over('baseline') }),
    });
  }
  await gw.close();
  if (baseline) await baseline.close();
  await minimal.close();
  await minimalHttp.close();
  await minimal2x.close();
  await engine.stop();

  console.log(`overhead against a ${ENGINE_MS} ms engine (ms; overhead = latency minus the direct HTTP call's)`);
  const rows = {};
  for (const [inFlight, level] of Object.entries(result.levels)) {
    for (const name of names)
      rows[`${name} @${inFlight}`] = { p50: ms(level[name].p50), p90: ms(level[name].p90), p99: ms(level[name].p99) };
    rows[`overhead minimal @${inFlight}`] = mapMs(level.overhead_minimal);
    rows[`overhead minimal_http @${inFlight}`] = mapMs(level.overhead_minimal_http);
    rows[`overhead minimal_2x @${inFlight}`] = mapMs(level.overhead_minimal_2x);
    rows[`overhead gateway @${inFlight}`] = mapMs(level.overhead_gateway);
    if (level.overhead_baseline) rows[`overhead baseline @${inFlight}`] = mapMs(level.overhead_baseline);
  }
  console.table(rows);
  for (const [inFlight, level] of Object.entries(result.levels)) {
    const show = (r) => `p50 ${r.p50.toFixed(2)}x, p99 ${r.p99.toFixed(2)}x`;
    console.log(
      `@${inFlight}: gateway overhead / SDK-only floor: fetch floor ${show(level.ratio_to_minimal)}; node:http floor ${show(level.ratio_to_minimal_http)}; 2.x floor ${show(level.ratio_to_minimal_2x)}`,
    );
  }
  save('overhead', result);
}

const mapMs = (row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, ms(v)]));

main();
