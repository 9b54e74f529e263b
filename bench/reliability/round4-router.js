// Round four's probes of `system1 serve-openai` (the OpenAI-compatible router) and the routing study: reading
// the route through the SDK's raw response, an upstream that lies in its headers, answers with a
// decompression bomb or cuts its answer off while the fast engine decides, big slow answers to many callers at
// once in shadow mode, a schema whose union refers to itself, a burst of connections past the cap, and the
// study's median-milliseconds column. Everything runs
// on loopback: the router, its fake upstream and the mock fast engine.
'use strict';
const { execFile } = require('node:child_process');
const { connect } = require('node:net');
const { mkdtempSync, readFileSync, rmSync, existsSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { gzipSync } = require('node:zlib');
const { sleep, mib } = require('./child');
const { send, outcome, STRUCTURED, PLAIN, MIB, withRouter: withRouterOf } = require('./router');

/** A chat.completion whose answer the shadow comparison can read, with `padding` bytes of filler. */
const slowCompletion = (padding = 0) =>
  JSON.stringify({
    id: 'chatcmpl-slow',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-slow',
    ...(padding > 0 && { padding: 'x'.repeat(padding) }),
    choices: [{ index: 0, message: { role: 'assistant', content: '{"verdict":"rerun"}' }, finish_reason: 'stop' }],
  });

/** A router (mock fast engine) over a fake upstream answering with `answer` (router.js's withRouter). */
const withRouter = (main, { args = [], env, answer, delayMs, killAfterMs = 60_000 } = {}, probe) =>
  withRouterOf(main, { args, env, killAfterMs, upstreamOptions: { answer, delayMs } }, probe);

/** The shadow log's records (the router writes it under the sandbox's install dir). */
function shadowRecords(box) {
  const file = path.join(box.dir, 'install', 'logs', 'router-shadow.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function waitForRecords(box, count, tries = 300) {
  for (let i = 0; i < tries && shadowRecords(box).length < count; i++) await sleep(100);
  return shadowRecords(box);
}

/**
 * Item 10: the official `openai` client reads the route through the raw response, once plainly and once with
 * X-Stainless-Raw-Response as openai-python's with_raw_response ("true") and with_streaming_response ("stream")
 * send it, and once with every X-Stainless-* header the SDKs send. The same route each time?
 */
function rawResponseRoute(main) {
  const OpenAI = require('openai').default;
  const SDK_HEADERS = {
    'X-Stainless-Lang': 'python',
    'X-Stainless-Package-Version': '1.109.1',
    'X-Stainless-OS': 'Linux',
    'X-Stainless-Arch': 'x64',
    'X-Stainless-Runtime': 'CPython',
    'X-Stainless-Runtime-Version': '3.12.4',
    'X-Stainless-Async': 'false',
    'X-Stainless-Retry-Count': '0',
    'X-Stainless-Read-Timeout': '600',
    'X-Stainless-Timeout': '600',
    'X-Stainless-Helper-Method': 'chat.completions.parse',
    'X-Stainless-Raw-Response': 'true',
  };
  return withRouter(main, { answer: (req, res) => res.end(slowCompletion()) }, async ({ url, slow }) => {
    const client = new OpenAI({ baseURL: url, apiKey: 'sk-probe-caller', maxRetries: 0 });
    const routeWith = async (headers) =>
      (await client.chat.completions.create(STRUCTURED, { headers }).asResponse()).headers.get('x-system1-route');
    const routes = {
      plain: await routeWith(undefined),
      with_raw_response: await routeWith({ 'X-Stainless-Raw-Response': 'true' }),
      with_streaming_response: await routeWith({ 'X-Stainless-Raw-Response': 'stream' }),
      every_sdk_header: await routeWith(SDK_HEADERS),
    };
    return {
      routes,
      same_route_every_way: new Set(Object.values(routes)).size === 1,
      sent_to_upstream: slow.hits.length,
    };
  });
}

/**
 * Item 11: the routing study of the checkout that holds `main` (its bench/routing/run.js, against the fake
 * engine, results written to a temporary folder): does its table have a median-milliseconds figure per way?
 */
function routingStudyMedianMs(main) {
  const checkout = path.resolve(path.dirname(main), '..');
  const script = path.join(checkout, 'bench', 'routing', 'run.js');
  const results = mkdtempSync(path.join(tmpdir(), 'system1-routing-study-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, '--fake'],
      { cwd: checkout, env: { ...process.env, BENCH_RESULTS_DIR: results }, timeout: 120_000 },
      (error) => {
        try {
          const table = JSON.parse(readFileSync(path.join(results, 'routing.json'), 'utf8'));
          const ways = ['direct_choice', 'features_and_rule', 'destructive_yes_no'];
          const rows = readFileSync(path.join(results, 'routing-rows.jsonl'), 'utf8').split('\n').filter(Boolean);
          resolve({
            ran: true,
            median_ms_per_way: Object.fromEntries(ways.map((way) => [way, Number.isFinite(table[way]?.median_ms)])),
            rows: rows.length,
            rows_timed: rows.filter((line) => /"(direct_ms|ms)":\d/.test(line)).length,
          });
        } catch {
          resolve({ ran: false, error: error ? (error.code ?? 'failed') : 'no results file' });
        } finally {
          rmSync(results, { recursive: true, force: true });
        }
      },
    );
  });
}

/** An upstream answering with its own x-system1-request-id and x-system1-route: which does the caller read? */
function upstreamReportHeaders(main) {
  const answer = (req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-system1-request-id': 'upstream-chosen-id',
      'x-system1-route': 'fast',
    });
    res.end(slowCompletion());
  };
  return withRouter(main, { answer }, async ({ url, launched }) => {
    const reply = await send(`${url}/chat/completions`, { body: PLAIN });
    await sleep(200);
    const id = reply.headers?.['x-system1-request-id'] ?? null;
    return {
      status: outcome(reply),
      request_id_is_the_upstreams: id === 'upstream-chosen-id',
      request_id_in_router_log: id !== null && launched.stderrSoFar().includes(`${id} POST`),
      route_is_the_upstreams: reply.headers?.['x-system1-route'] === 'fast',
    };
  });
}

/** A 200-byte schema whose union refers to itself ($defs A = anyOf [A, null]): forwarded, or a 500? */
function selfReferringUnion(main) {
  const body = {
    ...STRUCTURED,
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'Loop',
        schema: {
          type: 'object',
          properties: { a: { $ref: '#/$defs/A' } },
          $defs: { A: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } },
        },
      },
    },
  };
  return withRouter(main, { answer: (req, res) => res.end(slowCompletion()) }, async ({ url, slow }) => {
    const reply = await send(`${url}/chat/completions`, { body });
    return {
      schema_bytes: JSON.stringify(body.response_format).length,
      status: outcome(reply),
      route: reply.headers?.['x-system1-route'] ?? null,
      sent_to_upstream: slow.hits.length,
    };
  });
}

/**
 * Shadow mode, the upstream answering with 0.25 MB of gzip that inflates to 256 MiB: the router's peak RSS,
 * and what the shadow record says.
 */
function shadowGzipBomb(main) {
  const bomb = gzipSync(Buffer.concat([Buffer.from(slowCompletion()), Buffer.alloc(256 * MIB, 0x20)]), { level: 9 });
  const answer = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(bomb);
  };
  return withRouter(main, { args: ['--shadow'], answer }, async ({ url, box, launched }) => {
    const before = launched.sample().rss_mib;
    const reply = await send(`${url}/chat/completions`, { body: STRUCTURED, timeoutMs: 30_000 });
    const [record] = await waitForRecords(box, 1);
    return {
      compressed_mb: mib(bomb.length / 1e6),
      inflates_to_mib: 256,
      status: outcome(reply),
      rss_before_mib: mib(before),
      rss_peak_mib: mib(launched.sample().peak_rss_mib),
      recorded: record !== undefined,
      slow_unavailable: record?.slow_unavailable ?? null,
    };
  });
}

/** Shadow mode, 64 callers at once, each slow answer 8 MiB (the most one may keep): the router's peak RSS. */
function shadowManyBigAnswers(main) {
  const big = Buffer.from(slowCompletion(8 * MIB - 300));
  const answer = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(big);
  };
  return withRouter(main, { args: ['--shadow'], answer, delayMs: 300 }, async ({ url, box, launched }) => {
    const before = launched.sample().rss_mib;
    const callers = 64;
    const replies = await Promise.all(
      Array.from({ length: callers }, () => send(`${url}/chat/completions`, { body: STRUCTURED, timeoutMs: 60_000 })),
    );
    const records = await waitForRecords(box, callers);
    return {
      callers,
      answer_mib: mib(big.length / MIB),
      statuses: [...new Set(replies.map(outcome))],
      rss_before_mib: mib(before),
      rss_peak_mib: mib(launched.sample().peak_rss_mib),
      recorded: records.length,
      compared: records.filter((record) => record.slow_unavailable === undefined).length,
    };
  });
}

/**
 * Shadow mode, the fast engine taking 1 s and the upstream cutting its answer off at once: does the caller
 * get an answer within 5 s, and is the request in the shadow log?
 */
function shadowCutWhileDeciding(main) {
  const answer = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"id":', () => setTimeout(() => res.socket.destroy(), 50));
  };
  return withRouter(main, { args: ['--shadow'], answer, env: { SYSTEM1_MOCK_DELAY_S: '1' } }, async ({ url, box }) => {
    const reply = await send(`${url}/chat/completions`, { body: STRUCTURED, timeoutMs: 5_000 });
    const records = await waitForRecords(box, 1, 20);
    return {
      caller_within_5_s: outcome(reply),
      recorded: records.length,
      slow_unavailable: records[0]?.slow_unavailable ?? null,
    };
  });
}

/**
 * 300 connections at once (each sends half its headers and waits) against the cap of 256: how many the router
 * closed, and how many its log says it closed.
 */
function connectionBurst(main) {
  return withRouter(main, { killAfterMs: 30_000 }, async ({ url, launched }) => {
    const { hostname, port } = new URL(url);
    const closedEarly = new Set();
    const sockets = Array.from({ length: 300 }, () => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      socket.on('close', () => closedEarly.add(socket));
      socket.resume();
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`);
      return socket;
    });
    await sleep(1_500);
    const closedAtOnce = closedEarly.size;
    // One warning per 10 s: wait out the period for the rest of the count.
    await sleep(10_500);
    for (const socket of sockets) socket.destroy();
    const told = [...launched.stderrSoFar().matchAll(/closed (\d+) new connections? at the connection cap/g)];
    return {
      connections: sockets.length,
      closed_at_once: closedAtOnce,
      closed_per_log: told.reduce((sum, match) => sum + Number(match[1]), 0),
      warning_lines: told.length,
    };
  });
}

module.exports = {
  raw_response_route: rawResponseRoute,
  routing_study_median_ms: routingStudyMedianMs,
  upstream_report_headers: upstreamReportHeaders,
  self_referring_union: selfReferringUnion,
  shadow_gzip_bomb: shadowGzipBomb,
  shadow_many_big_answers: shadowManyBigAnswers,
  shadow_cut_while_deciding: shadowCutWhileDeciding,
  connection_burst: connectionBurst,
};
