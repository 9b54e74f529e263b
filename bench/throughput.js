// Throughput: decisions per second through one stdio session with the mock provider, at 1, 16 and 64 in
// flight, with the gateway and the minimal SDK-only server side by side.
'use strict';
const path = require('node:path');
const { isolatedEnv, gateway, connect, drive, save } = require('./lib');

const TOTAL = 3000;

async function main() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const gw = await gateway(env);
  const minimal = await connect([path.join(__dirname, 'minimal-server.js')], env);
  const ways = {
    gateway: () => gw.client.callTool({ name: 'system1_decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } }),
    minimal: () => minimal.client.callTool({ name: 'decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } }),
  };
  for (const run of Object.values(ways)) await drive(200, 16, run);
  const result = { command: 'npm run bench -- throughput', total_per_level: TOTAL, decisions_per_second: {} };
  for (const inFlight of [1, 16, 64]) {
    for (const [name, run] of Object.entries(ways)) {
      const started = performance.now();
      await drive(TOTAL, inFlight, run);
      (result.decisions_per_second[name] ??= {})[inFlight] = Math.round(TOTAL / ((performance.now() - started) / 1000));
    }
  }
  await gw.close();
  await minimal.close();
  console.log('decisions per second through one stdio session (mock provider)');
  console.table(result.decisions_per_second);
  save('throughput', result);
}

main();
