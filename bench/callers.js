// One runaway caller beside a polite one, on one serve-http replica (issue 31): the polite caller's latency
// alone, and beside a caller sending decisions as fast as 64 connections allow, with that caller held to its
// rate ([http.callers.runaway] rate_per_minute = 600, burst 20: it gets 429 for the rest) and, for contrast,
// with no rate set. The polite caller runs PER_ROUND decisions at 8 in flight with the SDK's Streamable HTTP
// client; the phases rotate each round; latencies are over every decision of every round. The engine is a
// fake System One engine answering in ENGINE_MS, so the figure is what the runaway costs the others in the
// gateway (on a 2-core machine the runaway's own client shares the cores, so it is an upper bound).
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { isolatedEnv, fake, drive, save, sized, summary, rotated } = require('./lib');
const { startReplica } = require('./load-balancer');

const ROUNDS = 5;
const PER_ROUND = sized(400, 60);
const POLITE_IN_FLIGHT = 8;
const RUNAWAY_CONNECTIONS = 64;
const ENGINE_MS = 5;
const ARGUMENTS = { question: 'Rerun the flaky job or block the merge?', options: ['rerun', 'block'] };
const TOKENS = { SYSTEM1_HTTP_TOKEN_POLITE: 'bench-polite-token', SYSTEM1_HTTP_TOKEN_RUNAWAY: 'bench-runaway-token' };

async function politeClient(url) {
  const client = new Client({ name: 'system1-bench-polite', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS.SYSTEM1_HTTP_TOKEN_POLITE}` } },
    }),
  );
  return client;
}

/**
 * A caller sending decisions on `connections` loops until stopped, in a process of its own (in this one it
 * would slow the polite client's own event loop, and the figure would not be the gateway's); its answers
 * counted by status.
 */
function runaway(url, connections) {
  const child = spawn(process.execPath, [__filename, '--runaway', url, String(connections)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(output || '{}');
    },
  };
}

/** The runaway's loops (the child process of `runaway`): prints its statuses when told to stop. */
function runRunaway(url, connections) {
  let running = true;
  const statuses = {};
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'system1_decide', arguments: ARGUMENTS },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
    authorization: `Bearer ${TOKENS.SYSTEM1_HTTP_TOKEN_RUNAWAY}`,
  };
  const loop = async () => {
    while (running) {
      try {
        const response = await fetch(url, { method: 'POST', headers, body });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  process.once('SIGTERM', async () => {
    running = false;
    await Promise.all(loops);
    process.stdout.write(JSON.stringify(statuses));
    process.exit(0);
  });
}

async function replicaWith(config, engineUrl) {
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-bench-callers-'));
  const file = path.join(dir, 'config.toml');
  writeFileSync(file, `[gateway]\nprovider = "systemone"\n[providers.systemone]\nendpoint = "${engineUrl}"\n${config}`);
  const replica = await startReplica(isolatedEnv({ ...TOKENS, SYSTEM1_CONFIG: file }));
  return { ...replica, stop: async () => (await replica.stop(), rmSync(dir, { recursive: true, force: true })) };
}

async function main() {
  const engine = fake('systemone');
  engine.latencyMs = () => ENGINE_MS;
  const origin = (await engine.start()).origin;
  const limited = await replicaWith('[http.callers.runaway]\nrate_per_minute = 600\nburst = 20\n', origin);
  const unlimited = await replicaWith('', origin);
  const clients = { limited: await politeClient(limited.url), unlimited: await politeClient(unlimited.url) };
  const polite = (client) => () =>
    drive(PER_ROUND, POLITE_IN_FLIGHT, async () => {
      const result = await client.callTool({ name: 'system1_decide', arguments: ARGUMENTS });
      if (result.structuredContent?.status !== 'decided')
        throw new Error(`a polite decision failed: ${JSON.stringify(result.structuredContent ?? result)}`);
    });
  const beside = (replica, client) => async () => {
    const other = runaway(replica.url, RUNAWAY_CONNECTIONS);
    // Let the runaway reach full speed before measuring.
    await new Promise((resolve) => setTimeout(resolve, 300));
    let durations;
    let statuses;
    try {
      durations = await polite(client)();
    } finally {
      statuses = await other.stop();
    }
    return { durations, statuses };
  };
  const phases = {
    alone: async () => ({ durations: await polite(clients.limited)() }),
    beside_limited_runaway: beside(limited, clients.limited),
    beside_unlimited_runaway: beside(unlimited, clients.unlimited),
  };
  try {
    await polite(clients.limited)();
    await polite(clients.unlimited)();
    const latencies = Object.fromEntries(Object.keys(phases).map((name) => [name, []]));
    const runawayStatuses = { beside_limited_runaway: {}, beside_unlimited_runaway: {} };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of rotated(Object.keys(phases), round)) {
        const { durations, statuses } = await phases[name]();
        latencies[name].push(...durations);
        for (const [status, count] of Object.entries(statuses ?? {}))
          runawayStatuses[name][status] = (runawayStatuses[name][status] ?? 0) + count;
      }
    }
    const phasesOut = Object.fromEntries(Object.keys(phases).map((name) => [name, summary(latencies[name])]));
    const ratio = (name) => ({
      p50: phasesOut[name].p50 / phasesOut.alone.p50,
      p99: phasesOut[name].p99 / phasesOut.alone.p99,
    });
    console.log(
      `the polite caller's latency (ms) at ${POLITE_IN_FLIGHT} in flight, ${ROUNDS} rounds of ${PER_ROUND}; a runaway on ${RUNAWAY_CONNECTIONS} connections`,
    );
    console.table(
      Object.fromEntries(
        Object.entries(phasesOut).map(([name, stats]) => [
          name,
          { p50: stats.p50.toFixed(2), p99: stats.p99.toFixed(2) },
        ]),
      ),
    );
    console.log("the runaway's answers by status:", JSON.stringify(runawayStatuses));
    save('callers', {
      rounds: ROUNDS,
      decisions_per_round: PER_ROUND,
      polite_in_flight: POLITE_IN_FLIGHT,
      runaway_connections: RUNAWAY_CONNECTIONS,
      engine_latency_ms: ENGINE_MS,
      runaway_rate: { rate_per_minute: 600, burst: 20 },
      phases: phasesOut,
      runaway_statuses: runawayStatuses,
      ratio_to_alone: {
        beside_limited_runaway: ratio('beside_limited_runaway'),
        beside_unlimited_runaway: ratio('beside_unlimited_runaway'),
      },
    });
  } finally {
    await Promise.all(Object.values(clients).map((client) => client.close()));
    await Promise.all([limited.stop(), unlimited.stop()]);
    await engine.stop();
  }
}

if (process.argv[2] === '--runaway') runRunaway(process.argv[3], Number(process.argv[4]));
else
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
