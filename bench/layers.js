// Where the gateway's overhead over an SDK-only server goes, layer by layer, each measured beside its floor
// in one run: (1) the MCP round trip with no engine (the mock vs the minimal server answering at once),
// (2) the engine HTTP client vs a bare node:http request with a kept-alive socket, (3) one decision in
// process (DecideService over the pipeline and the laya adapter) vs the bare request it makes.
'use strict';
const http = require('node:http');
const path = require('node:path');
const {
  ROOT,
  MAIN,
  BASELINE_MAIN,
  fake,
  isolatedEnv,
  connect,
  gateway,
  drive,
  summary,
  save,
  ms,
  median,
  sized,
} = require('./lib');

const ROUNDS = sized(5, 2);
const QUESTION = 'Rerun the flaky pipeline or block the merge?';
const OPTIONS = ['rerun the pipeline', 'block the merge'];

/** Median of each round's p50 and p99. */
async function rounds(ways, perRound) {
  const per = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  for (const run of Object.values(ways)) await drive(sized(100, 20), 1, run);
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, run] of Object.entries(ways)) per[name].push(summary(await drive(perRound, 1, run)));
  return Object.fromEntries(
    Object.entries(per).map(([name, list]) => [
      name,
      { p50: median(list.map((r) => r.p50)), p99: median(list.map((r) => r.p99)) },
    ]),
  );
}

async function mcpRoundTrip() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const servers = {
    minimal: await connect([path.join(__dirname, 'minimal-server.js')], env),
    gateway: await gateway(env),
  };
  if (BASELINE_MAIN) servers.baseline = await gateway(env, BASELINE_MAIN);
  const ways = Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      () =>
        server.client.callTool({
          name: name === 'minimal' ? 'decide' : 'system1_decide',
          arguments: { question: QUESTION, options: OPTIONS },
        }),
    ]),
  );
  const result = await rounds(ways, sized(300, 30));
  for (const server of Object.values(servers)) await server.close();
  return result;
}

async function inProcess() {
  require(path.join(ROOT, 'node_modules', 'reflect-metadata'));
  const engine = fake('laya');
  engine.latencyMs = () => 0;
  const url = (await engine.start()).origin;
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: url, SYSTEM1_LOG_LEVEL: 'ERROR' });
  Object.assign(process.env, env);
  const { NestFactory } = require('@nestjs/core');
  const { McpAppModule } = require(path.join(ROOT, 'dist', 'entrypoints', 'mcp-app.module'));
  const { DecideService } = require(path.join(ROOT, 'dist', 'mcp', 'decide', 'decide.service'));
  const { EngineHttpClient } = require(path.join(ROOT, 'dist', 'providers', 'http', 'engine-http.client'));
  const app = await NestFactory.createApplicationContext(McpAppModule, { logger: false });
  const decide = app.get(DecideService);
  const client = new EngineHttpClient();
  const agent = new http.Agent({ keepAlive: true });
  const body = {
    model: 'typed-decisions',
    state: {},
    questions: { decision: { type: 'choice', instructions: QUESTION, criteria: OPTIONS } },
  };
  const text = JSON.stringify(body);
  const ways = {
    'bare node:http': () =>
      new Promise((resolve, reject) => {
        const request = http.request(
          `${url}/v1/systemone`,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
          },
          (response) => {
            const chunks = [];
            response.on('data', (chunk) => chunks.push(chunk));
            response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          },
        );
        request.on('error', reject);
        request.end(text);
      }),
    'engine HTTP client': () =>
      client.request({
        method: 'POST',
        url: new URL(`${url}/v1/systemone`),
        body,
        signal: AbortSignal.timeout(5000),
        allowRemote: false,
      }),
    'DecideService (pipeline + laya adapter)': () => decide.decide({ question: QUESTION, options: OPTIONS }),
  };
  const result = await rounds(ways, sized(500, 50));
  await app.close();
  await engine.stop();
  return result;
}

async function main() {
  const mcp = await mcpRoundTrip();
  const process_ = await inProcess();
  console.log('MCP round trip, no engine (ms; medians of per-round percentiles, 1 in flight)');
  console.table(Object.fromEntries(Object.entries(mcp).map(([k, v]) => [k, { p50: ms(v.p50), p99: ms(v.p99) }])));
  console.log('in process, against the fake laya at 0 ms (ms)');
  console.table(Object.fromEntries(Object.entries(process_).map(([k, v]) => [k, { p50: ms(v.p50), p99: ms(v.p99) }])));
  save('layers', {
    main: MAIN,
    rounds: ROUNDS,
    ...(BASELINE_MAIN && { baseline_main: BASELINE_MAIN }),
    mcp_round_trip_no_engine: mcp,
    in_process: process_,
    mcp_layer_over_minimal_p50_ms: mcp.gateway.p50 - mcp.minimal.p50,
    pipeline_over_bare_request_p50_ms:
      process_['DecideService (pipeline + laya adapter)'].p50 - process_['bare node:http'].p50,
    client_over_bare_request_p50_ms: process_['engine HTTP client'].p50 - process_['bare node:http'].p50,
  });
}

main();
