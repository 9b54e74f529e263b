// Throughput: decisions per second through one stdio session with the mock provider, at 1, 16 and 64 in
// flight, the gateway (and a baseline build when BENCH_BASELINE_MAIN is set) beside the minimal SDK-only
// server: per level, ROUNDS rounds in which every server runs PER_ROUND decisions in turn (the order rotated
// each round), and the median of the rounds, so a busy minute on a shared machine moves one round of each
// server, not the figure. And the routing hook's four features against a batch-capable fake engine, one pass
// per reading against four calls, in rounds the same way.
'use strict';
const path = require('node:path');
const { ROOT, BASELINE_MAIN, fake, isolatedEnv, gateway, connect, drive, save, sized, median, rotated } = require('./lib');

const ROUNDS = 5;
const PER_ROUND = sized(2000, 200);
const LEVELS = [1, 16, 64];

/** Runs each way `perRound` times per round, in rotated order; per way, every round's rate and the median. */
async function inRounds(ways, perRound, inFlight) {
  const names = Object.keys(ways);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotated(names, round)) {
      const started = performance.now();
      await ways[name].run(perRound, inFlight);
      rounds[name].push(perRound / ((performance.now() - started) / 1000));
    }
  }
  return Object.fromEntries(names.map((name) => [name, { median: median(rounds[name]), by_round: rounds[name] }]));
}

/** Decisions per second through the MCP server, and through the minimal server as the floor. */
async function stdioSessions() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const gw = await gateway(env);
  const baseline = BASELINE_MAIN && (await gateway(env, BASELINE_MAIN));
  const minimal = await connect([path.join(__dirname, 'minimal-server.js')], env);
  const call = (server, name) => ({ run: (total, inFlight) => drive(total, inFlight, () => server.client.callTool({ name, arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } })) });
  const ways = {
    gateway: call(gw, 'system1_decide'),
    minimal: call(minimal, 'decide'),
    ...(baseline && { baseline: call(baseline, 'system1_decide') }),
  };
  for (const way of Object.values(ways)) await way.run(sized(200, 50), 16);
  const levels = {};
  for (const inFlight of LEVELS) levels[inFlight] = await inRounds(ways, PER_ROUND, inFlight);
  await gw.close();
  if (baseline) await baseline.close();
  await minimal.close();
  console.log(`decisions per second through one stdio session (mock provider), median of ${ROUNDS} rounds of ${PER_ROUND}`);
  console.table(Object.fromEntries(Object.keys(ways).map((name) => [name, Object.fromEntries(LEVELS.map((level) => [level, Math.round(levels[level][name].median)]))])));
  return levels;
}

const READINGS = sized(200, 40);
const READINGS_IN_FLIGHT = 16;
const PASS_MS = 5;
const PROMPT = 'Design the architecture for the new billing service and decide between a queue and cron jobs';

/**
 * The routing hook's feature reader (the hook's own wiring, in this process) asking its four yes/no
 * features per prompt of the fake llama-server (`systemone`, which answers several questions in one POST):
 * as it does, in one pass, and as it does for engines that cannot batch, one call per feature in parallel
 * (the same provider told it cannot batch). Two engine models, each pass taking PASS_MS: an engine that
 * serves calls concurrently, and one that runs one pass at a time (one model on one device).
 */
async function routingFeatures() {
  const { createHookServices } = require(path.join(ROOT, 'dist', 'entrypoints', 'hook-services.factory'));
  const { GatewayLogger } = require(path.join(ROOT, 'dist', 'logging', 'gateway.logger'));
  const engine = fake('systemone');
  const url = (await engine.start()).origin;
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'systemone', SYSTEM1_SYSTEMONE_ENDPOINT: url, SYSTEM1_ROUTING_ENABLED: 'true' });
  const services = createHookServices(env, new GatewayLogger(() => {}));
  const [primary] = services.registry.chain();
  if (!primary.provider.capabilities().batch) throw new Error('the systemone provider should answer several questions in one pass');
  // The same engine as one that cannot batch: each question its own call, in parallel, as choice-only engines do.
  const oneByOne = {
    capabilities: () => ({ ...primary.provider.capabilities(), batch: false }),
    evaluate: async (request, context) => {
      const replies = await Promise.all(Object.entries(request.questions).map(([id, q]) => primary.provider.evaluate({ ...request, questions: { [id]: q } }, context)));
      return { answers: Object.assign({}, ...replies.map((reply) => reply.answers)) };
    },
  };
  const separate = createHookServices(env, new GatewayLogger(() => {}));
  separate.registry.instance = () => ({ provider: oneByOne, errors: [], problem: '' });
  const readers = {
    'one pass (4 questions per call)': services.featureReader,
    'four calls (1 question each)': separate.featureReader,
  };
  let busyUntil = 0;
  const engines = {
    concurrent: () => PASS_MS,
    'one pass at a time': () => {
      const now = performance.now();
      busyUntil = Math.max(busyUntil, now) + PASS_MS;
      return busyUntil - now;
    },
  };
  const result = {};
  for (const [engineName, latency] of Object.entries(engines)) {
    engine.latencyMs = latency;
    const ways = Object.fromEntries(
      Object.entries(readers).map(([readerName, reader]) => {
        const way = {
          calls: 0,
          run: (total, inFlight) =>
            drive(total, inFlight, async (i) => {
              const reading = await reader.read(PROMPT, 10_000, `bench-${i}`);
              if (reading.kind !== 'answered') throw new Error(`a reading failed: ${reading.detail}`);
              way.calls += reading.engineCalls;
            }),
        };
        return [readerName, way];
      }),
    );
    for (const way of Object.values(ways)) await way.run(50, READINGS_IN_FLIGHT);
    for (const way of Object.values(ways)) way.calls = 0;
    const perSecond = await inRounds(ways, READINGS, READINGS_IN_FLIGHT);
    result[engineName] = Object.fromEntries(
      Object.entries(perSecond).map(([readerName, readings]) => [
        readerName,
        {
          readings_per_second: readings.median,
          decisions_per_second: 4 * readings.median,
          engine_calls_per_reading: ways[readerName].calls / (ROUNDS * READINGS),
          by_round: readings.by_round,
        },
      ]),
    );
  }
  await engine.stop();
  console.log(`routing features (4 yes/no questions per prompt), fake llama-server, ${PASS_MS} ms per pass, ${READINGS_IN_FLIGHT} prompts in flight`);
  console.table(Object.fromEntries(Object.entries(result).flatMap(([e, rows]) => Object.entries(rows).map(([r, v]) => [`${e}: ${r}`, { 'readings/s': Math.round(v.readings_per_second), 'decisions/s': Math.round(v.decisions_per_second), 'engine calls per reading': v.engine_calls_per_reading }]))));
  return { pass_ms: PASS_MS, rounds: ROUNDS, readings_per_round: READINGS, in_flight: READINGS_IN_FLIGHT, engines: result };
}

async function main() {
  const levels = await stdioSessions();
  const routing = await routingFeatures();
  save('throughput', { rounds: ROUNDS, decisions_per_round: PER_ROUND, levels, routing_features: routing });
}

main();
