// Throughput: decisions per second through one stdio session with the mock provider, at 1, 16 and 64 in
// flight, the gateway (and a baseline build when BENCH_BASELINE_MAIN is set) beside the minimal SDK-only
// server: per level, ROUNDS rounds in which every server runs PER_ROUND decisions in turn (the order rotated
// each round), and the median of the rounds, so a busy minute on a shared machine moves one round of each
// server, not the figure. And the routing hook's four features against a batch-capable fake engine, one pass
// per reading against four calls, in rounds the same way.
'use strict';
const path = require('node:path');
const {
  ROOT,
  BASELINE_MAIN,
  fake,
  isolatedEnv,
  gateway,
  connect,
  drive,
  save,
  sized,
  median,
  rotated,
} = require('./lib');

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

const call = (server, name) => ({
  run: (total, inFlight) =>
    drive(total, inFlight, async () => {
      const result = await server.client.callTool({
        name,
        arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] },
      });
      if (result.isError || (result.structuredContent && result.structuredContent.status !== 'decided'))
        throw new Error(`a decision failed: ${JSON.stringify(result)}`);
    }),
});

/** Each way at each level, in rounds; printed as a table titled `title`. */
async function atEachLevel(ways, title) {
  for (const way of Object.values(ways)) await way.run(sized(200, 50), 16);
  const levels = {};
  for (const inFlight of LEVELS) levels[inFlight] = await inRounds(ways, PER_ROUND, inFlight);
  console.log(`${title}, median of ${ROUNDS} rounds of ${PER_ROUND}`);
  console.table(
    Object.fromEntries(
      Object.keys(ways).map((name) => [
        name,
        Object.fromEntries(LEVELS.map((level) => [level, Math.round(levels[level][name].median)])),
      ]),
    ),
  );
  return levels;
}

/**
 * Decisions per second through the MCP server with the mock provider, and through the minimal servers
 * answering at once: the 1.x SDK's (`minimal`) and the 2.x SDK's the gateway now uses (`minimal_2x`).
 */
async function stdioSessions() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const servers = {
    gateway: await gateway(env),
    minimal: await connect([path.join(__dirname, 'minimal-server.js')], env),
    minimal_2x: await connect([path.join(__dirname, 'minimal-server-2x.js')], env),
    ...(BASELINE_MAIN && { baseline: await gateway(env, BASELINE_MAIN) }),
  };
  const tool = (name) => (name.startsWith('minimal') ? 'decide' : 'system1_decide');
  const ways = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, call(server, tool(name))]));
  try {
    return await atEachLevel(ways, 'decisions per second through one stdio session (mock provider)');
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.close()));
  }
}

/**
 * The same with an engine: every server forwards each decision to one fake System One engine (the
 * gateway as provider `systemone`, the 2.x SDK-only floor with node:http and a kept-alive socket), the
 * engine answering at once, so what differs is what each server does around the engine call.
 */
async function stdioSessionsWithEngine() {
  const engine = fake('systemone');
  const url = (await engine.start()).origin;
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'systemone', SYSTEM1_SYSTEMONE_ENDPOINT: url, ENGINE_URL: url });
  const servers = {
    gateway: await gateway(env),
    minimal_2x: await connect([path.join(__dirname, 'minimal-server-2x.js')], env),
    ...(BASELINE_MAIN && { baseline: await gateway(env, BASELINE_MAIN) }),
  };
  const ways = Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      call(server, name === 'minimal_2x' ? 'decide' : 'system1_decide'),
    ]),
  );
  try {
    return await atEachLevel(ways, 'decisions per second through one stdio session, forwarded to a fake engine');
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.close()));
    await engine.stop();
  }
}

/** The gateway's rate over the floor's, per level (0.8 = the gateway does 80% of the floor's decisions a second). */
const ratios = (levels, floor) =>
  Object.fromEntries(LEVELS.map((level) => [level, levels[level].gateway.median / levels[level][floor].median]));

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
  const env = isolatedEnv({
    SYSTEM1_PROVIDER: 'systemone',
    SYSTEM1_SYSTEMONE_ENDPOINT: url,
    SYSTEM1_ROUTING_ENABLED: 'true',
  });
  const services = createHookServices(env, new GatewayLogger(() => {}));
  const [primary] = services.registry.chain();
  if (!primary.provider.capabilities().batch)
    throw new Error('the systemone provider should answer several questions in one pass');
  // The same engine as one that cannot batch: each question its own call, in parallel, as choice-only engines do.
  const oneByOne = {
    capabilities: () => ({ ...primary.provider.capabilities(), batch: false }),
    evaluate: async (request, context) => {
      const replies = await Promise.all(
        Object.entries(request.questions).map(([id, q]) =>
          primary.provider.evaluate({ ...request, questions: { [id]: q } }, context),
        ),
      );
      return { answers: Object.assign({}, ...replies.map((reply) => reply.answers)) };
    },
  };
  const separate = createHookServices(env, new GatewayLogger(() => {}));
  const { singleEngine } = require(path.join(ROOT, 'dist', 'decisions', 'registry', 'engine-pool'));
  separate.registry.instance = () => ({ provider: oneByOne, pool: singleEngine(oneByOne), errors: [], problem: '' });
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
  console.log(
    `routing features (4 yes/no questions per prompt), fake llama-server, ${PASS_MS} ms per pass, ${READINGS_IN_FLIGHT} prompts in flight`,
  );
  console.table(
    Object.fromEntries(
      Object.entries(result).flatMap(([e, rows]) =>
        Object.entries(rows).map(([r, v]) => [
          `${e}: ${r}`,
          {
            'readings/s': Math.round(v.readings_per_second),
            'decisions/s': Math.round(v.decisions_per_second),
            'engine calls per reading': v.engine_calls_per_reading,
          },
        ]),
      ),
    ),
  );
  return {
    pass_ms: PASS_MS,
    rounds: ROUNDS,
    readings_per_round: READINGS,
    in_flight: READINGS_IN_FLIGHT,
    engines: result,
  };
}

async function main() {
  const levels = await stdioSessions();
  const withEngine = await stdioSessionsWithEngine();
  const routing = await routingFeatures();
  save('throughput', {
    rounds: ROUNDS,
    decisions_per_round: PER_ROUND,
    levels,
    ratio_to_minimal_2x: ratios(levels, 'minimal_2x'),
    with_engine: { levels: withEngine, ratio_to_minimal_2x: ratios(withEngine, 'minimal_2x') },
    routing_features: routing,
  });
}

main();
