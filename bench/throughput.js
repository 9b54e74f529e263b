// Throughput: decisions per second through one stdio session with the mock provider, at 1, 16 and 64 in
// flight, with the gateway and the minimal SDK-only server side by side; and the routing hook's four
// features against a batch-capable fake engine, one pass per reading against four calls, side by side.
'use strict';
const path = require('node:path');
const { ROOT, BASELINE_MAIN, fake, isolatedEnv, gateway, connect, drive, save } = require('./lib');

const TOTAL = 3000;

/** Decisions per second through the MCP server, and through the minimal server as the floor. */
async function stdioSessions() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const gw = await gateway(env);
  const baseline = BASELINE_MAIN && (await gateway(env, BASELINE_MAIN));
  const minimal = await connect([path.join(__dirname, 'minimal-server.js')], env);
  const decide = (server) => () => server.client.callTool({ name: 'system1_decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } });
  const ways = {
    gateway: decide(gw),
    minimal: () => minimal.client.callTool({ name: 'decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } }),
    ...(baseline && { baseline: decide(baseline) }),
  };
  for (const run of Object.values(ways)) await drive(200, 16, run);
  const perSecond = {};
  for (const inFlight of [1, 16, 64]) {
    for (const [name, run] of Object.entries(ways)) {
      const started = performance.now();
      await drive(TOTAL, inFlight, run);
      (perSecond[name] ??= {})[inFlight] = Math.round(TOTAL / ((performance.now() - started) / 1000));
    }
  }
  await gw.close();
  if (baseline) await baseline.close();
  await minimal.close();
  console.log('decisions per second through one stdio session (mock provider)');
  console.table(perSecond);
  return perSecond;
}

const READINGS = 600;
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
    for (const [readerName, reader] of Object.entries(readers)) {
      let calls = 0;
      const read = async (i) => {
        const reading = await reader.read(PROMPT, 10_000, `bench-${i}`);
        if (reading.kind !== 'answered') throw new Error(`a reading failed: ${reading.detail}`);
        calls += reading.engineCalls;
      };
      await drive(50, READINGS_IN_FLIGHT, read);
      calls = 0;
      const started = performance.now();
      await drive(READINGS, READINGS_IN_FLIGHT, read);
      const seconds = (performance.now() - started) / 1000;
      (result[engineName] ??= {})[readerName] = {
        readings_per_second: Math.round(READINGS / seconds),
        decisions_per_second: Math.round((4 * READINGS) / seconds),
        engine_calls_per_reading: calls / READINGS,
      };
    }
  }
  await engine.stop();
  console.log(`routing features (4 yes/no questions per prompt), fake llama-server, ${PASS_MS} ms per pass, ${READINGS_IN_FLIGHT} prompts in flight`);
  console.table(Object.fromEntries(Object.entries(result).flatMap(([e, rows]) => Object.entries(rows).map(([r, v]) => [`${e}: ${r}`, v]))));
  return { pass_ms: PASS_MS, readings: READINGS, in_flight: READINGS_IN_FLIGHT, engines: result };
}

async function main() {
  const decisionsPerSecond = await stdioSessions();
  const routing = await routingFeatures();
  save('throughput', { command: 'npm run bench -- throughput', total_per_level: TOTAL, decisions_per_second: decisionsPerSecond, routing_features: routing });
}

main();
