// Memory: the gateway's RSS idle (started, one health call) and after 10,000 decisions with the mock.
'use strict';
const path = require('node:path');
const { isolatedEnv, gateway, connect, drive, rssMb, save, MAIN, BASELINE_MAIN } = require('./lib');

const ROUNDS = 3;

/** RSS of one server idle (started, one health call) and after 10,000 decisions at 16 in flight. */
async function measure(start, tools) {
  const server = await start();
  await server.client.callTool(tools.health);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssMb(server.pid);
  await drive(10_000, 16, () => server.client.callTool(tools.decide));
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
  for (let round = 0; round < ROUNDS; round++) for (const [name, run] of Object.entries(ways)) (runs[name] ??= []).push(await run());
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rss = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [name, { idle: median(list.map((r) => r.idle)), after_10000: median(list.map((r) => r.after)) }]),
  );
  console.log(`RSS MB, medians of ${ROUNDS} interleaved runs`);
  console.table(Object.fromEntries(Object.entries(rss).map(([name, r]) => [name, { idle: r.idle.toFixed(1), 'after 10,000 decisions': r.after_10000.toFixed(1) }])));
  save('memory', { command: 'npm run bench -- memory', main: MAIN, rounds: ROUNDS, rss_mb: rss.gateway, by_server: rss, ...(BASELINE_MAIN && { baseline_main: BASELINE_MAIN }) });
}

main();
