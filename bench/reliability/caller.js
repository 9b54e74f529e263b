// Probes of serve-http as a shared service (issue 25): one caller with a valid token against everyone else.
// Each starts `serve-http` on 127.0.0.1 with its engines faked on loopback, sends what an attacker would as raw
// JSON-RPC over HTTP, and records what the other callers then see; nothing leaves the machine.
'use strict';
const { request } = require('node:http');
const { fake } = require('../lib');
const { launch, sandbox, sleep, mib } = require('./child');
const { send } = require('./router');

const TOKEN = 'reliability-caller-token-5e2a';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const MCP_HEADERS = { ...AUTH, accept: 'application/json, text/event-stream' };
const QUESTION = { id: 'q', type: 'choice', instructions: 'Rerun or block?', criteria: { rerun: null, block: null } };
const DECIDE = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

/** `serve-http` on a port the system picks; resolves with its origin, or `refused` when it exited first. */
async function serveHttp(main, box, env, { killAfterMs = 60_000 } = {}) {
  const launched = launch(main, ['serve-http', '--port', '0'], {
    env: box.env({ SYSTEM1_HTTP_TOKEN: TOKEN, ...env }),
    cwd: box.dir,
    killAfterMs,
  });
  for (;;) {
    const match = /listening on (http:\/\/\S+)\/mcp/.exec(launched.stderrSoFar());
    if (match) return { origin: match[1], launched };
    if (launched.child.exitCode !== null || launched.child.signalCode !== null) return { launched, refused: true };
    await sleep(25);
  }
}

let nextId = 1;
/** One tool call over HTTP: the tool's structured result, `{rpc_error}`, or `{http_status}`/`{error}`. */
async function call(origin, name, args, timeoutMs = 15_000) {
  const answer = await send(`${origin}/mcp`, {
    headers: MCP_HEADERS,
    body: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
    timeoutMs,
  });
  if (answer.error) return { error: answer.error };
  if (answer.status !== 200) return { http_status: answer.status };
  try {
    const reply = JSON.parse(answer.body);
    return reply.error ? { rpc_error: reply.error.code } : reply.result.structuredContent;
  } catch {
    return { unreadable: true };
  }
}

/** The request's error code, or its one question's error code or status. */
const outcomeOf = (reply) =>
  reply.error?.code ??
  reply.answers?.q?.error?.code ??
  reply.answers?.q?.status ??
  reply.status ??
  Object.keys(reply)[0];

/** Starts a server over `engines` (fakes by name) with `env(origins)`, runs `probe`, stops everything. */
async function withServer(main, engines, env, probe, options) {
  const fakes = Object.fromEntries(engines.map((name) => [name, fake(name)]));
  const origins = {};
  for (const [name, engine] of Object.entries(fakes)) origins[name] = (await engine.start()).origin;
  const box = sandbox();
  try {
    const server = await serveHttp(main, box, env(origins), options);
    if (server.refused) return { started: false, ended: (await server.launched.done).ended };
    try {
      return await probe(server, fakes);
    } finally {
      server.launched.kill();
      await server.launched.done;
    }
  } finally {
    box.dispose();
    for (const engine of Object.values(fakes)) await engine.stop();
  }
}

const SYSTEMONE_CHAIN = (origins) => ({
  SYSTEM1_PROVIDER: 'systemone',
  SYSTEM1_SYSTEMONE_ENDPOINT: origins.typesafe,
  SYSTEM1_SYSTEMONE_MODEL: 'jev-1.14.0',
  SYSTEM1_SYSTEMONE_API_KEY: 'k',
});

/**
 * Three asks naming the primary's provider with a model its engine does not know (the operator lets callers
 * choose its models, so the asks reach it); then another caller decides.
 */
async function callerCooldown(main) {
  return withServer(
    main,
    ['typesafe'],
    (origins) => ({ ...SYSTEMONE_CHAIN(origins), SYSTEM1_HTTP_CALLER_MODELS: 'systemone:*' }),
    async ({ origin }) => {
      const asks = [];
      for (let i = 0; i < 3; i++)
        asks.push(
          outcomeOf(
            await call(origin, 'system1_ask', {
              state: 's',
              questions: [QUESTION],
              model: { provider: 'systemone', model: 'no-such-checkpoint' },
            }),
          ),
        );
      const next = await call(origin, 'system1_decide', DECIDE);
      return {
        ask_outcomes: asks,
        next_decision: next.status ?? outcomeOf(next),
        next_decided_by: next.provider ?? null,
        primary_cooling_down: /cooling down/.test(JSON.stringify(next)),
      };
    },
  );
}

/** 85 asks with distinct 900 KB model names against a 192 MB heap: is the server still there, and how big? */
async function callerModelMemory(main) {
  return withServer(
    main,
    ['typesafe'],
    (origins) => ({ ...SYSTEMONE_CHAIN(origins), NODE_OPTIONS: '--max-old-space-size=192' }),
    async ({ origin, launched }) => {
      const outcomes = {};
      for (let i = 0; i < 85; i++) {
        const reply = await call(origin, 'system1_ask', {
          state: 's',
          questions: [QUESTION],
          model: { provider: 'systemone', model: `${i}${'m'.repeat(900 * 1024)}` },
        });
        const key = String(outcomeOf(reply));
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (launched.child.exitCode !== null || launched.child.signalCode !== null) break;
      }
      const alive = launched.child.exitCode === null && launched.child.signalCode === null;
      const after = alive ? await call(origin, 'system1_decide', DECIDE) : {};
      const calls = Object.values(outcomes).reduce((sum, count) => sum + count, 0);
      return {
        calls,
        refused_as_invalid_request: outcomes.invalid_request ?? 0,
        outcomes,
        alive,
        decides_after: after.status ?? null,
        rss_mib: mib(launched.sample().rss_mib),
      };
    },
  );
}

/** A chain of `mock` alone, ANTHROPIC_API_KEY in the environment: does an ask naming anthropic reach its API? */
async function callerOffChainEngine(main) {
  return withServer(
    main,
    ['anthropic'],
    (origins) => ({
      SYSTEM1_PROVIDER: 'mock',
      ANTHROPIC_API_KEY: 'sk-ant-operator',
      SYSTEM1_ANTHROPIC_ENDPOINT: origins.anthropic,
    }),
    async ({ origin }, { anthropic }) => {
      anthropic.record = true;
      const reply = await call(origin, 'system1_ask', {
        state: 's',
        questions: [QUESTION],
        model: { provider: 'anthropic', model: 'claude-opus-4' },
      });
      return {
        outcome: outcomeOf(reply),
        requests_to_anthropic: anthropic.requests.length,
        key_sent: anthropic.requests.some((r) => r.headers['x-api-key'] === 'sk-ant-operator'),
      };
    },
  );
}

/** A score question with 40,000 levels; /healthz asked every 100 ms meanwhile: how many answered within 1 s? */
async function wideScore(main) {
  return withServer(
    main,
    [],
    () => ({ SYSTEM1_PROVIDER: 'mock' }),
    async ({ origin }) => {
      const levels = Array.from({ length: 40_000 }, (_, i) => `level ${i}`);
      let done = false;
      const pending = call(
        origin,
        'system1_ask',
        { state: 's', questions: [{ id: 'q', type: 'score', instructions: 'Rate it.', criteria: levels }] },
        60_000,
      ).finally(() => (done = true));
      let probes = 0;
      let slow = 0;
      while (!done && probes < 300) {
        probes += 1;
        const health = await send(`${origin}/healthz`, { method: 'GET', timeoutMs: 1_000 });
        if (health.status !== 200) slow += 1;
        await sleep(100);
      }
      return { outcome: outcomeOf(await pending), healthz_probes: probes, healthz_not_answered_within_1s: slow };
    },
  );
}

/** 64 asks naming invented providers, then a decision by the chain: under which provider label is it counted? */
async function inventedProviderLabels(main) {
  return withServer(
    main,
    [],
    () => ({ SYSTEM1_PROVIDER: 'mock' }),
    async ({ origin }) => {
      for (let i = 0; i < 64; i++)
        await call(origin, 'system1_ask', { state: 's', questions: [QUESTION], model: { provider: `invented-${i}` } });
      await call(origin, 'system1_decide', DECIDE);
      const metrics = await send(`${origin}/metrics`, { method: 'GET', headers: AUTH });
      const line = (metrics.body ?? '')
        .split('\n')
        .find((text) => text.startsWith('system1_decisions_total{') && text.includes('surface="system1_decide"'));
      return { decide_counted_as: /provider="([^"]*)"/.exec(line ?? '')?.[1] ?? null };
    },
  );
}

/** Four clients trickling a body a byte a second hold the slots ([http] max_in_flight 4)? A fifth, whole request: */
async function trickledBodies(main) {
  return withServer(
    main,
    [],
    () => ({ SYSTEM1_PROVIDER: 'mock', SYSTEM1_HTTP_MAX_IN_FLIGHT: '4' }),
    async ({ origin }) => {
      const target = new URL(`${origin}/mcp`);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'system1_decide', arguments: DECIDE },
      });
      const tricklers = Array.from({ length: 4 }, () => {
        const req = request({
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { ...MCP_HEADERS, 'content-type': 'application/json', 'content-length': body.length },
        });
        req.on('error', () => undefined);
        req.write(body.slice(0, 1));
        let sent = 1;
        const timer = setInterval(() => (sent < body.length - 1 ? req.write(body[sent++]) : undefined), 1_000);
        return { stop: () => (clearInterval(timer), req.destroy()) };
      });
      await sleep(500);
      const fifth = await send(`${origin}/mcp`, { headers: MCP_HEADERS, body: JSON.parse(body), timeoutMs: 5_000 });
      for (const trickler of tricklers) trickler.stop();
      return { fifth_status: fifth.status ?? fifth.error };
    },
  );
}

/** A model the operator's typesafe settings cannot take: are the caller's words garbled, or the operator's path named? */
async function notUsableMessage(main) {
  const box = sandbox();
  const config = box.file('config.toml', '[gateway]\nprovider = "mock"\n[providers.typesafe]\nmodel = "jev-latest"\n');
  return withServer(
    main,
    [],
    () => ({ SYSTEM1_CONFIG: config, SYSTEM1_HTTP_CALLER_MODELS: 'typesafe:*' }),
    async ({ origin }) => {
      const model = `caller-model-${'z'.repeat(40)}`;
      const reply = await call(origin, 'system1_ask', {
        state: 's',
        questions: [QUESTION],
        model: { provider: 'typesafe', model },
      });
      const text = JSON.stringify(reply);
      return {
        outcome: outcomeOf(reply),
        garbled: /environment variable providers\./.test(text),
        names_config_path: text.includes(box.dir),
        model_name_repeats: text.split(model).length - 1,
      };
    },
  ).finally(() => box.dispose());
}

module.exports = {
  callerCooldown,
  callerModelMemory,
  callerOffChainEngine,
  wideScore,
  inventedProviderLabels,
  trickledBodies,
  notUsableMessage,
};
