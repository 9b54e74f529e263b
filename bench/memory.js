// Memory: the gateway's RSS idle (started, one health call) and after 10,000 decisions with the mock.
'use strict';
const { isolatedEnv, gateway, drive, rssMb, save } = require('./lib');

async function main() {
  const gw = await gateway(isolatedEnv({ SYSTEM1_PROVIDER: 'mock' }));
  await gw.client.callTool({ name: 'system1_health', arguments: {} });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssMb(gw.pid);
  await drive(10_000, 16, () => gw.client.callTool({ name: 'system1_decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } }));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = rssMb(gw.pid);
  await gw.close();
  console.table({ 'RSS MB': { idle: idle.toFixed(1), 'after 10,000 decisions': after.toFixed(1) } });
  save('memory', { command: 'npm run bench -- memory', rss_mb: { idle, after_10000: after } });
}

main();
