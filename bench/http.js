// serve-http beside `mcp` (stdio), in one run: decisions per second and latency (p50, p99) with the mock
// provider at 1, 16 and 64 in flight, through
//   stdio      one `system1 mcp` session (the SDK's stdio client), as Claude Code runs it per user;
//   http       one `system1 serve-http` replica, the SDK's Streamable HTTP client (one client, requests in
//              parallel over its connection pool), as a team's clients reach one gateway;
//   haproxy_3  three replicas behind haproxy (examples/haproxy.cfg), the same client (skipped, with a note
//              in the results file, when haproxy is not installed);
//   sdk_http   the floor: an SDK-only server (bench/minimal-server-2x.js, the 2.x SDK's createMcpHandler on
//              node:http, stateless, one tool answering at once), the same client;
//   baseline_http  one replica of the baseline build (BENCH_BASELINE_MAIN), the same client.
// Per level, ROUNDS rounds in which every way runs PER_ROUND decisions in turn (the order rotated each
// round); the rate is the median of the rounds, the latencies are over every decision of every round.
// On a 2-core machine three replicas and haproxy share the cores with the client: the figure says what
// the balancer costs there, not what three hosts would give.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { BASELINE_MAIN, isolatedEnv, gateway, drive, save, sized, median, rotated, summary } = require('./lib');
const {
  findExecutable,
  freePort,
  haproxyConfig,
  startHaproxy,
  startListening,
  startReplica,
  waitForStates,
  writeConfig,
} = require('./load-balancer');

const ROUNDS = 5;
const PER_ROUND = sized(1000, 100);
const LEVELS = [1, 16, 64];
const REPLICAS = 3;
const ARGUMENTS = { question: 'Rerun the flaky job or block the merge?', options: ['rerun', 'block'] };

/** An MCP client over Streamable HTTP to `url`. */
async function httpClient(url) {
  const client = new Client({ name: 'system1-bench-http', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A way to send decisions: `run(total, inFlight)` resolves with each decision's latency in ms. */
const way = (client) => ({
  run: (total, inFlight) =>
    drive(total, inFlight, async () => {
      const result = await client.callTool({ name: 'system1_decide', arguments: ARGUMENTS });
      if (result.structuredContent?.status !== 'decided')
        throw new Error(`a decision failed: ${JSON.stringify(result.structuredContent ?? result)}`);
    }),
});

/** The SDK-only floor's one tool, `decide`. */
const floorWay = (client) => ({
  run: (total, inFlight) =>
    drive(total, inFlight, async () => {
      const result = await client.callTool({ name: 'decide', arguments: ARGUMENTS });
      if (result.isError) throw new Error(`the floor failed: ${JSON.stringify(result)}`);
    }),
});

/** Three replicas behind haproxy, or the reason there are none. */
async function balanced(haproxy, dir) {
  const frontendPort = await freePort();
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock', SYSTEM1_HTTP_ALLOWED_HOSTS: `127.0.0.1:${frontendPort}` });
  const replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startReplica(env)));
  const statsSocket = path.join(dir, 'haproxy.sock');
  const config = writeConfig(
    path.join(dir, 'haproxy.cfg'),
    haproxyConfig({ frontendPort, replicaPorts: replicas.map((replica) => replica.port), statsSocket }),
  );
  const balancer = startHaproxy(haproxy, config);
  await waitForStates(
    statsSocket,
    (states) => Object.keys(states).length === REPLICAS && Object.values(states).every((state) => state === 'UP'),
  );
  const version = /HAProxy version (\S+)/.exec(execFileSync(haproxy, ['-v'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  return {
    url: `http://127.0.0.1:${frontendPort}/mcp`,
    version,
    stop: async () => {
      await balancer.stop();
      await Promise.all(replicas.map((replica) => replica.stop()));
    },
  };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-bench-http-'));
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const stdio = await gateway(env);
  const replica = await startReplica(env);
  const http = await httpClient(replica.url);
  const haproxy = findExecutable('haproxy');
  const behind = haproxy ? await balanced(haproxy, dir) : undefined;
  const viaHaproxy = behind ? await httpClient(behind.url) : undefined;
  const floor = await startListening([path.join(__dirname, 'minimal-server-2x.js')], {
    ...env,
    MINIMAL_HTTP_PORT: '0',
  });
  const viaFloor = await httpClient(floor.url);
  const baselineReplica = BASELINE_MAIN && (await startReplica(env, 0, BASELINE_MAIN));
  const viaBaseline = baselineReplica && (await httpClient(baselineReplica.url));
  const ways = {
    stdio: way(stdio.client),
    http: way(http),
    sdk_http: floorWay(viaFloor),
    ...(viaBaseline && { baseline_http: way(viaBaseline) }),
    ...(viaHaproxy && { haproxy_3: way(viaHaproxy) }),
  };
  try {
    for (const each of Object.values(ways)) await each.run(sized(200, 50), 16);
    const levels = {};
    for (const inFlight of LEVELS) {
      const rates = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
      const latencies = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of rotated(Object.keys(ways), round)) {
          const started = performance.now();
          const durations = await ways[name].run(PER_ROUND, inFlight);
          rates[name].push(PER_ROUND / ((performance.now() - started) / 1000));
          latencies[name].push(...durations);
        }
      }
      levels[inFlight] = Object.fromEntries(
        Object.keys(ways).map((name) => {
          const { p50, p99 } = summary(latencies[name]);
          return [name, { median: median(rates[name]), by_round: rates[name], p50_ms: p50, p99_ms: p99 }];
        }),
      );
    }
    console.log(
      `decisions per second (mock provider), median of ${ROUNDS} rounds of ${PER_ROUND}; latency p50/p99 in ms`,
    );
    console.table(
      Object.fromEntries(
        Object.keys(ways).flatMap((name) =>
          LEVELS.map((level) => [
            `${name} @${level}`,
            {
              'decisions/s': Math.round(levels[level][name].median),
              p50: levels[level][name].p50_ms.toFixed(2),
              p99: levels[level][name].p99_ms.toFixed(2),
            },
          ]),
        ),
      ),
    );
    save('http', {
      rounds: ROUNDS,
      decisions_per_round: PER_ROUND,
      levels,
      // One replica against the SDK-only floor, per level: decisions per second (higher is better) and p50 latency.
      ratio_to_sdk_http: Object.fromEntries(
        LEVELS.map((level) => [
          level,
          {
            decisions_per_s: levels[level].http.median / levels[level].sdk_http.median,
            p50: levels[level].http.p50_ms / levels[level].sdk_http.p50_ms,
          },
        ]),
      ),
      haproxy: behind
        ? { version: behind.version, replicas: REPLICAS, config: 'examples/haproxy.cfg' }
        : { skipped: 'haproxy is not installed (apt-get install haproxy): the balanced figures were not measured' },
    });
  } finally {
    await Promise.all([stdio.close(), http.close(), viaHaproxy?.close(), viaFloor.close(), viaBaseline?.close()]);
    await Promise.all([replica.stop(), floor.stop(), baselineReplica?.stop()]);
    await behind?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
