// Memory: the gateway's RSS idle (started, one health call) and after DECISIONS decisions with the mock, beside
// the minimal SDK server (and a baseline build), in interleaved runs.
'use strict';
const path = require('node:path');
const { isolatedEnv, gateway, connect, drive, rssMb, save, median, sized, MAIN, BASELINE_MAIN } = require('./lib');

const ROUNDS = sized(3, 1);
const DECISIONS = sized(10_000, 1000);
const IN_FLIGHT = 16;

/** RSS of one server idle (started, one health call) and after DECISIONS decisions at IN_FLIGHT. */
async function measure(start, tools) {
  const server = await start();
  await server.client.callTool(tools.health);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssMb(server.pid);
  await drive(DECISIONS, IN_FLIGHT, () => server.client.callTool(tools.decide));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = rssMb(server.pid);
  await server.close();
  return { idle, after };
}

async function main() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const gatewayTools = {
    health: { name: 'system1_health', arguments: {} },
    decide: { name: 'system1_decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } },
  };
  const ways = {
    gateway: () => measure(() => gateway(env), gatewayTools),
    // The floor: its one tool stands in for health too.
    'minimal SDK server': () =>
      measure(() => connect([path.join(__dirname, 'minimal-server.js')], env), {
        health: { name: 'decide', arguments: { question: 'q' } },
        decide: { name: 'decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } },
      }),
  };
  if (BASELINE_MAIN) ways['baseline gateway'] = () => measure(() => gateway(env, BASELINE_MAIN), gatewayTools);
  const runs = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, run] of Object.entries(ways)) (runs[name] ??= []).push(await run());
  const rss = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      { idle: median(list.map((r) => r.idle)), after_decisions: median(list.map((r) => r.after)) },
    ]),
  );
  console.log(`RSS MB, medians of ${ROUNDS} interleaved runs`);
  console.table(
    Object.fromEntries(
      Object.entries(rss).map(([name, r]) => [
        name,
        { idle: r.idle.toFixed(1), [`after ${DECISIONS} decisions`]: r.after_decisions.toFixed(1) },
      ]),
    ),
  );
  save('memory', {
    main: MAIN,
    rounds: ROUNDS,
    decisions: DECISIONS,
    in_flight: IN_FLIGHT,
    rss_mb: rss.gateway,
    by_server: rss,
    ...(BASELINE_MAIN && { baseline_main: BASELINE_MAIN }),
  });
}

main();
