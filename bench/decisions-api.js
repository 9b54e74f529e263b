// The Decisions API served by serve-http (issue 41): one fake System One engine answering at once, one
// `system1 serve-http` replica pointed at it with a token (SYSTEM1_HTTP_TOKEN, so every request takes the
// authenticated path), and three ways to the same one-choice decision, interleaved:
//   direct        the System One request serve-http sends the engine for that question, POSTed to the engine
//                 itself with node:http and a keep-alive agent: the floor;
//   v1_decisions  POST /v1/decisions on serve-http, the same node:http client (not the openai client, whose
//                 own cost is not the server's; it reads the first reply once, before the rounds);
//   mcp           system1_decide over serve-http's /mcp with the MCP SDK's Streamable HTTP client, as
//                 bench/http.js drives it (its figures include that client's work).
// Per level, ROUNDS rounds in which every way runs its decisions in turn (the order rotated each round): the
// rate is the median of the rounds, each percentile the median of the rounds' percentiles. The added latency
// of a way is its percentile minus the direct call's; whether /v1/decisions adds at most what /mcp adds is
// written down as data (true/false), not asserted.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { randomBytes } = require('node:crypto');
const { readFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { OpenAI } = require('openai');
const { ROOT, fake, isolatedEnv, drive, save, sized, median, rotated, summary, ms } = require('./lib');
const { startReplica } = require('./load-balancer');

const ROUNDS = sized(7, 3);
/** Decisions per way per round at each level: one at a time for latency, 32 at once for the rate. */
const PER_ROUND = { 1: sized(1000, 100), 32: sized(2000, 300) };
const LEVELS = [1, 32];
const QUESTION = 'Rerun the flaky job or block the merge?';
const OPTIONS = ['rerun', 'block'];
/** What the engine decides on: the input of /v1/decisions, the context of system1_decide. */
const FACTS = 'The integration job failed once on main and passed on the retry in the merge queue.';
const MCP_ARGUMENTS = { question: QUESTION, options: OPTIONS, context: { facts: FACTS } };
const DECISIONS_REQUEST = {
  model: 'system1',
  input: FACTS,
  questions: [{ type: 'choice', instructions: QUESTION, choices: OPTIONS.map((value) => ({ value })) }],
};

/** POSTs `body` (JSON text) with `agent`, following no redirect; resolves with the status and the parsed reply. */
function postJson(agent, url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            resolve({ status: response.statusCode, json: JSON.parse(text) });
          } catch {
            reject(new Error(`${url} answered ${response.statusCode} with no JSON: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The floor: the engine's own request, straight to the engine. */
const directWay = (agent, engineUrl, body) => async () => {
  const { status, json } = await postJson(agent, `${engineUrl}/v1/systemone`, body);
  if (status !== 200 || typeof json.answers !== 'object')
    throw new Error(`the engine failed: ${status} ${JSON.stringify(json)}`);
};

/** POST /v1/decisions on serve-http. */
const decisionsWay = (agent, base, token) => {
  const body = JSON.stringify(DECISIONS_REQUEST);
  const headers = { authorization: `Bearer ${token}` };
  return async () => {
    const { status, json } = await postJson(agent, `${base}/v1/decisions`, body, headers);
    if (status !== 200 || json.answers?.[0]?.type !== 'choice')
      throw new Error(`/v1/decisions failed: ${status} ${JSON.stringify(json)}`);
  };
};

/** system1_decide over /mcp. */
const mcpWay = (client) => async () => {
  const result = await client.callTool({ name: 'system1_decide', arguments: MCP_ARGUMENTS });
  if (result.structuredContent?.status !== 'decided')
    throw new Error(`a decision over /mcp failed: ${JSON.stringify(result.structuredContent ?? result)}`);
};

/** An MCP client over Streamable HTTP to `url`, sending the token. */
async function mcpClient(url, token) {
  const client = new Client({ name: 'system1-bench-decisions-api', version: '0' });
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

/**
 * What the openai client makes of the first reply of /v1/decisions: throws unless it has the answers, model
 * and usage `client.decisions.create` promises (one choice answer among the options).
 */
async function checkWithOpenAiClient(base, token) {
  const client = new OpenAI({ apiKey: token, baseURL: `${base}/v1`, maxRetries: 0, timeout: 30_000 });
  const reply = await client.decisions.create(DECISIONS_REQUEST);
  const [answer] = Array.isArray(reply.answers) ? reply.answers : [];
  const problems = [
    reply.answers?.length !== 1 && 'answers is not a list of one answer',
    answer?.type !== 'choice' && 'answers[0].type is not "choice"',
    !OPTIONS.includes(answer?.choice) && 'answers[0].choice is not one of the options',
    answer?.probabilities?.length !== OPTIONS.length && 'answers[0].probabilities does not list every option',
    typeof reply.model !== 'string' && 'model is not a string',
    !Number.isInteger(reply.usage?.input_tokens) && 'usage.input_tokens is not a whole number',
    !Number.isInteger(reply.usage?.total_tokens) && 'usage.total_tokens is not a whole number',
  ].filter(Boolean);
  if (problems.length)
    throw new Error(`the openai client cannot use the reply (${problems.join('; ')}): ${JSON.stringify(reply)}`);
  return reply;
}

/** The one request the engine got while `ask()` ran (recorded for that call only). */
async function engineRequestOf(engine, ask) {
  engine.record = true;
  try {
    const reply = await ask();
    const requests = engine.requests.splice(0);
    if (requests.length !== 1) throw new Error(`the engine got ${requests.length} requests for one decision`);
    return { reply, body: requests[0].body };
  } finally {
    engine.record = false;
  }
}

/** Every way at one level, ROUNDS rounds of `perRound` decisions each (rotated): rate and latency per way. */
async function measure(ways, inFlight, perRound) {
  const names = Object.keys(ways);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotated(names, round)) {
      const started = performance.now();
      const durations = await drive(perRound, inFlight, ways[name]);
      rounds[name].push({ rate: perRound / ((performance.now() - started) / 1000), ...summary(durations) });
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const list = rounds[name];
      const rates = list.map((r) => r.rate);
      return [
        name,
        {
          decisions_per_s: median(rates),
          by_round: rates,
          p50_ms: median(list.map((r) => r.p50)),
          p99_ms: median(list.map((r) => r.p99)),
        },
      ];
    }),
  );
}

/** Each served way's latency minus the direct call's, at p50 and p99. */
const addedOver = (level) =>
  Object.fromEntries(
    ['v1_decisions', 'mcp'].map((name) => [
      name,
      { p50: level[name].p50_ms - level.direct.p50_ms, p99: level[name].p99_ms - level.direct.p99_ms },
    ]),
  );

function printResult(levels, added) {
  console.log(`decisions per second (median of ${ROUNDS} rounds) and latency in ms (median of the rounds' p50, p99)`);
  const rows = {};
  for (const level of LEVELS) {
    for (const [name, way] of Object.entries(levels[level]))
      rows[`${name} @${level}`] = {
        'decisions/s': Math.round(way.decisions_per_s),
        p50: ms(way.p50_ms),
        p99: ms(way.p99_ms),
        'added p50': name === 'direct' ? '' : ms(added[level][name].p50),
        'added p99': name === 'direct' ? '' : ms(added[level][name].p99),
      };
  }
  console.table(rows);
}

/** The engine, the replica and the clients; `close()` ends what was started, also after a failed start. */
async function start() {
  const closers = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const engine = fake('systemone');
    engine.apiKey = undefined; // serve-http is given no engine key here, whatever this shell holds
    const engineUrl = (await engine.start()).origin;
    closers.push(() => engine.stop());
    const token = randomBytes(24).toString('hex');
    const env = isolatedEnv({
      SYSTEM1_PROVIDER: 'systemone',
      SYSTEM1_SYSTEMONE_ENDPOINT: engineUrl,
      SYSTEM1_HTTP_TOKEN: token,
    });
    const replica = await startReplica(env);
    closers.push(() => replica.stop());
    const agents = { direct: new http.Agent({ keepAlive: true }), served: new http.Agent({ keepAlive: true }) };
    closers.push(() => Object.values(agents).forEach((agent) => agent.destroy()));
    const mcp = await mcpClient(replica.url, token);
    closers.push(() => mcp.close());
    return { engine, engineUrl, token, base: replica.url.replace(/\/mcp$/, ''), agents, mcp, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function main() {
  const { engine, engineUrl, token, base, agents, mcp, close } = await start();
  try {
    const checked = await engineRequestOf(engine, () => checkWithOpenAiClient(base, token));
    const viaMcp = await engineRequestOf(engine, () => mcpWay(mcp)());
    const ways = {
      direct: directWay(agents.direct, engineUrl, JSON.stringify(checked.body)),
      v1_decisions: decisionsWay(agents.served, base, token),
      mcp: mcpWay(mcp),
    };
    for (const run of Object.values(ways)) await drive(sized(300, 50), 8, run); // warm-up
    const levels = {};
    const added = {};
    for (const level of LEVELS) {
      levels[level] = await measure(ways, level, PER_ROUND[level]);
      added[level] = addedOver(levels[level]);
    }
    printResult(levels, added);
    const verdict = {
      p50: added[1].v1_decisions.p50 <= added[1].mcp.p50,
      p99: added[1].v1_decisions.p99 <= added[1].mcp.p99,
    };
    console.log(
      `added latency at 1 in flight of /v1/decisions <= that of /mcp: p50 ${verdict.p50}, p99 ${verdict.p99}`,
    );
    save('decisions-api', {
      rounds: ROUNDS,
      decisions_per_round: PER_ROUND,
      engine: { provider: 'systemone', fake: 'llama-server (test/fakes/systemone.fake.ts), answering at once' },
      // What each served way made of the same question, as the engine received it; `direct` sends the first.
      engine_requests: { v1_decisions: checked.body, mcp: viaMcp.body },
      openai_client: {
        version: JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'openai', 'package.json'), 'utf8')).version,
        reply_model: checked.reply.model,
        reply_usage: checked.reply.usage,
      },
      levels,
      added_latency_ms: added,
      // Issue 41: the latency /v1/decisions adds over the direct call at most what /mcp adds, at 1 in flight.
      v1_decisions_added_at_most_mcp: verdict,
      decisions_per_s_ratio_v1_decisions_to_mcp: Object.fromEntries(
        LEVELS.map((level) => [level, levels[level].v1_decisions.decisions_per_s / levels[level].mcp.decisions_per_s]),
      ),
    });
  } finally {
    await close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
