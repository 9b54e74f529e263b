// What the shared state store (issue 42: `[state] url`, a real redis-server on loopback) adds to a decision, beside
// the in-process state in the same run: three serve-http replicas of this build with every decision taking a
// token from its caller's bucket ([http] rate_per_minute set high enough never to refuse), the mock engine.
// Latency at 1 in flight against one replica (p50/p99 over every decision, plain HTTP POSTs of system1_decide on
// a kept-alive connection), and decisions per second at 32 in flight spread over the three replicas in turn.
// The two modes alternate by round; the store mode's replicas share one Redis, the in-process ones nothing.
'use strict';
const http = require('node:http');
const { rmSync } = require('node:fs');
const { isolatedEnv, drive, save, sized, summary, median } = require('./lib');
const { startReplica } = require('./load-balancer');
const { startRedis } = require('./redis-server');

const ROUNDS = sized(3, 1);
const LATENCY_DECISIONS = sized(2000, 100);
const LOAD_DECISIONS = sized(6000, 300);
const LOAD_IN_FLIGHT = 32;
const REPLICAS = 3;
const TOKEN = 'bench-state-token';
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'system1_decide', arguments: { question: 'Rerun the flaky job?', options: ['rerun', 'block'] } },
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One decision on `port`; rejects unless answered 200 (a refusal would measure the limiter, not a decision). */
function decide(port) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(BODY),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function startMode(storeUrl) {
  const env = isolatedEnv({
    SYSTEM1_PROVIDER: 'mock',
    SYSTEM1_HTTP_TOKEN: TOKEN,
    SYSTEM1_HTTP_RATE_PER_MINUTE: '1000000',
    SYSTEM1_HTTP_BURST: '1000000',
    SYSTEM1_LOG_LEVEL: 'WARNING',
    ...(storeUrl && { SYSTEM1_STATE_URL: storeUrl }),
  });
  const replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startReplica(env)));
  return {
    ports: replicas.map((replica) => replica.port),
    stop: async () => {
      await Promise.all(replicas.map((replica) => replica.stop()));
      rmSync(env.HOME, { recursive: true, force: true });
    },
  };
}

async function measure(mode) {
  // A warm-up, so neither mode pays the first connections, the JIT or the script's first load.
  await drive(200, 8, (i) => decide(mode.ports[i % REPLICAS]));
  const latencies = await drive(LATENCY_DECISIONS, 1, () => decide(mode.ports[0]));
  const started = performance.now();
  await drive(LOAD_DECISIONS, LOAD_IN_FLIGHT, (i) => decide(mode.ports[i % REPLICAS]));
  const perSecond = LOAD_DECISIONS / ((performance.now() - started) / 1000);
  return { latencies, perSecond };
}

async function main() {
  const redis = await startRedis();
  const samples = { in_process: [], store: [] };
  const rates = { in_process: [], store: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['in_process', 'store'] : ['store', 'in_process'];
      for (const name of order) {
        const mode = await startMode(name === 'store' ? redis.url : undefined);
        try {
          const { latencies, perSecond } = await measure(mode);
          samples[name].push(...latencies);
          rates[name].push(perSecond);
          console.log(
            `round ${round + 1} ${name}: p50 ${summary(latencies).p50.toFixed(3)} ms, ${perSecond.toFixed(0)}/s`,
          );
        } finally {
          await mode.stop();
        }
      }
    }
  } finally {
    agent.destroy();
    await redis.stop();
  }
  const one = { in_process: summary(samples.in_process), store: summary(samples.store) };
  save('state-store', {
    replicas: REPLICAS,
    rounds: ROUNDS,
    levels: {
      1: {
        ...one,
        added_ms: { p50: one.store.p50 - one.in_process.p50, p99: one.store.p99 - one.in_process.p99 },
      },
      [LOAD_IN_FLIGHT]: {
        in_process: { decisions_per_second: median(rates.in_process) },
        store: { decisions_per_second: median(rates.store) },
      },
    },
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
