// Round four, an attack round of its own on the pipeline: a choice-only engine that breaks in the middle of a
// system1_ask, an engine whose replies parse into millions of small objects with the decision cache on, a
// pool whose every copy of a hedged request is slow, and the 2026-07-28 era over stdio with hostile envelopes.
// Each probe starts `mcp` with its engines faked on 127.0.0.1 (raw node:http servers speaking the formats of
// wire-contracts.md) and records what a user sees; nothing leaves the machine.
'use strict';
const { createServer } = require('node:http');
const { launch, sandbox, jsonLines, sleep, mib } = require('./child');
const { countById, INITIALIZE } = require('./mcp');

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * An engine on 127.0.0.1 whose answers `respond(path, body, index)` writes (or leaves hanging, by returning
 * null); it counts the requests it got and those still open (neither answered nor closed by the client).
 */
async function engine(respond) {
  let received = 0;
  const open = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // answered as the fake decides
      }
      const index = received++;
      const reply = respond(req.url, body, index);
      if (reply === null) {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received: () => received,
    open: () => open.size,
    stop: () =>
      new Promise((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}

/**
 * A started `mcp` with the 2025 handshake sent, as ./mcp.js's session but under a longer kill timer (a build
 * that never exits once stdin closes is still killed, and says so in `ended`).
 */
function session(main, env, killAfterMs = 60_000) {
  const launched = launch(main, ['mcp'], { env, killAfterMs });
  const send = (message) => launched.child.stdin.write(`${JSON.stringify(message)}\n`);
  send(INITIALIZE);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const replies = () => jsonLines(launched.stdoutSoFar()).messages;
  const until = (test, waitMs = 5_000) => within(waitMs, () => test(replies()));
  const finish = () => {
    launched.child.stdin.end();
    return launched.done;
  };
  return { ...launched, send, replies, until, finish };
}

/** One tools/call over a started session; its structured result, or null when none came. */
async function toolCall(s, id, name, args, waitMs = 15_000) {
  s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  await s.until((replies) => countById(replies, id) >= 1, waitMs);
  return s.replies().find((reply) => reply.id === id)?.result?.structuredContent ?? null;
}

/** Waits (up to `ms`) until `test()` holds; returns whether it did. */
async function within(ms, test) {
  for (let waited = 0; waited < ms && !test(); waited += 50) await sleep(50);
  return test();
}

/**
 * system1_ask with 16 questions on Ollama (a choice-only engine: one request per question) that breaks mid-call:
 * the last of the call's requests to arrive gets a 500, the others hang. How many requests the engine got, and
 * how many the gateway left open at it after answering (the round-four fix: none; before, 15 for good).
 */
async function askFanOutOnBrokenEngine(main) {
  const QUESTIONS = 16;
  const ollama = await engine((path, body, index) =>
    (index + 1) % QUESTIONS === 0 ? { status: 500, body: { error: 'llama runner process has terminated' } } : null,
  );
  const box = sandbox();
  try {
    const config = box.file(
      'config.toml',
      `[gateway]\nprovider = "ollama"\ntimeout_s = 60\n[providers.ollama]\nendpoint = "${ollama.url}"\nmodel = "gemma4:e4b"\n`,
    );
    // Killed after 15 s: a build that leaves requests open at the engine may not exit when stdin closes.
    const s = session(main, box.env({ SYSTEM1_CONFIG: config }), 15_000);
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    const questions = Array.from({ length: QUESTIONS }, (_, i) => ({
      id: `q${i}`,
      type: 'choice',
      instructions: `Is step ${i} safe to rerun?`,
      criteria: { rerun: null, block: null },
    }));
    const reply = await toolCall(s, 1, 'system1_ask', { state: { job: 'deploy' }, questions });
    // Closed connections take a moment to reach the engine: a second is far more than loopback needs.
    await within(2_000, () => ollama.open() === 0);
    const leftOpen = ollama.open();
    const result = await s.finish();
    const codes = Object.values(reply?.answers ?? {}).map((answer) => answer.error?.code ?? answer.status);
    return {
      questions: QUESTIONS,
      answered: reply !== null,
      answer_codes: [...new Set(codes)],
      engine_requests: ollama.received(),
      engine_requests_left_open: leftOpen,
      ended: result.ended,
    };
  } finally {
    box.dispose();
    await ollama.stop();
  }
}

/**
 * A System One engine whose every answer carries ~900 KB of `[{},{},...]` (3 bytes a member as text, some 70 as
 * objects), decided 48 times with distinct contexts and the decision cache on (its default 16 MiB): the peak
 * and final RSS of `mcp`, and whether a repeated request is still answered from the cache.
 */
async function cacheOfJunkReplies(main) {
  const junk = `[${Array(300_000).fill('{}').join(',')}]`;
  const systemone = await engine((path, body) => {
    const [id, question] = Object.entries(body?.questions ?? {})[0] ?? ['q', { criteria: { a: null, b: null } }];
    const [first, second] = Object.keys(question.criteria ?? { a: null, b: null });
    const answer = `{"type":"choice","choice":${JSON.stringify(first)},"probabilities":{${JSON.stringify(first)}:0.8,${JSON.stringify(second)}:0.2},"trace":${junk}}`;
    return { body: `{"model":"junk-1","answers":{${JSON.stringify(id)}:${answer}}}` };
  });
  const box = sandbox();
  try {
    const config = box.file(
      'config.toml',
      `[gateway]\nprovider = "systemone"\ncache_ttl_s = 600\n[providers.systemone]\nendpoint = "${systemone.url}"\n`,
    );
    const launched = session(main, box.env({ SYSTEM1_CONFIG: config }));
    await launched.until((replies) => countById(replies, INITIALIZE.id) === 1);
    const ask = (n) => ({ question: 'Rerun or block?', options: ['rerun', 'block'], context: { ticket: n } });
    let decided = 0;
    for (let n = 0; n < 48; n++) {
      const reply = await toolCall(launched, n + 1, 'system1_decide', ask(n), 30_000);
      if (reply?.status === 'decided') decided += 1;
    }
    const repeat = await toolCall(launched, 100, 'system1_decide', ask(47), 30_000);
    await sleep(500);
    const now = launched.sample();
    const result = await launched.finish();
    return {
      decisions: 48,
      decided,
      engine_requests: systemone.received(),
      repeat_answered_from_cache: repeat?.attempts?.[0]?.outcome === 'cached',
      rss_at_end_mib: mib(now.rss_mib),
      peak_rss_mib: mib(result.peak_rss_mib),
      ended: result.ended,
    };
  } finally {
    box.dispose();
    await systemone.stop();
  }
}

/**
 * A pool of two replicas, hedged after 50 ms with a 1 s timeout, each slow (hanging) for the first request it
 * gets and answering after: both copies of the first call are slow. Whether that call and the next are
 * decided, the first call's attempts, and the requests left open at the replicas afterwards.
 */
async function hedgeRaceAllSlow(main) {
  const replica = () =>
    engine((path, body, index) => {
      if (index === 0) return null;
      const [id, question] = Object.entries(body?.questions ?? {})[0];
      const [first, second] = Object.keys(question.criteria);
      const probabilities = { [first]: 0.8, [second]: 0.2 };
      return { body: { answers: { [id]: { type: 'choice', choice: first, probabilities } } } };
    });
  const replicas = [await replica(), await replica()];
  const box = sandbox();
  try {
    const config = box.file(
      'config.toml',
      '[gateway]\nprovider = "systemone"\ntimeout_s = 1\nhedge_after_ms = 50\nhedge_budget = 1\n' +
        `[providers.systemone]\nendpoints = [${replicas.map((r) => JSON.stringify(r.url)).join(', ')}]\n`,
    );
    const s = session(main, box.env({ SYSTEM1_CONFIG: config }));
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    const ask = { question: 'Rerun or block?', options: ['rerun', 'block'], context: { ticket: 1 } };
    const first = await toolCall(s, 1, 'system1_decide', ask);
    const next = await toolCall(s, 2, 'system1_decide', { ...ask, context: { ticket: 2 } });
    const open = () => replicas.reduce((sum, r) => sum + r.open(), 0);
    await within(2_000, () => open() === 0);
    const leftOpen = open();
    const result = await s.finish();
    return {
      first_call: first?.status ?? null,
      first_call_error: first?.error?.code ?? null,
      first_call_attempts: (first?.attempts ?? []).map((attempt) => attempt.outcome),
      next_call: next?.status ?? null,
      next_call_error: next?.error?.code ?? null,
      engine_requests: replicas.reduce((sum, r) => sum + r.received(), 0),
      engine_requests_left_open: leftOpen,
      ended: result.ended,
    };
  } finally {
    box.dispose();
    for (const r of replicas) await r.stop();
  }
}

/**
 * `mcp` pinned to 2026-07-28 by its opening request, then: a revision claim that is a number, a 600 KB method
 * and a 600 KB claimed revision, the same in a notification, and an old-era initialize with a 600 KB
 * protocolVersion. The error code each request got, the longest line written to stderr, and whether the
 * server still answers.
 */
async function stdioHostileEnvelopes(main) {
  const claim = (revision) => ({ _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': revision } });
  const messages = [
    { id: 'pin', method: 'tools/list', params: { _meta: ENVELOPE } },
    { id: 'number', method: 'tools/list', params: claim(20260728) },
    { id: 'long-method', method: 'm'.repeat(600_000), params: claim('2099-01-01') },
    { id: 'long-revision', method: 'tools/list', params: claim('v'.repeat(600_000)) },
    { method: 'notifications/cancelled', params: { requestId: 'x', ...claim('w'.repeat(600_000)) } },
    {
      id: 'old-handshake',
      method: 'initialize',
      params: { protocolVersion: 'p'.repeat(600_000), capabilities: {}, clientInfo: { name: 'x', version: '0' } },
    },
    { id: 'still-serving', method: 'tools/list', params: { _meta: ENVELOPE } },
  ];
  const box = sandbox();
  try {
    const launched = launch(main, ['mcp'], { env: box.env({ SYSTEM1_PROVIDER: 'mock' }), killAfterMs: 20_000 });
    for (const message of messages) launched.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const ids = messages.filter((message) => 'id' in message).map((message) => message.id);
    const answered = () => jsonLines(launched.stdoutSoFar()).messages.filter((reply) => ids.includes(reply.id));
    await within(10_000, () => answered().length >= ids.length);
    launched.child.stdin.end();
    const result = await launched.done;
    const replies = jsonLines(result.stdout).messages;
    const codeOf = (id) => {
      const reply = replies.find((candidate) => candidate.id === id);
      return reply ? (reply.error?.code ?? 'result') : null;
    };
    const lines = result.stderr.split('\n');
    return {
      codes: Object.fromEntries(ids.map((id) => [id, codeOf(id)])),
      longest_stderr_line_chars: Math.max(...lines.map((line) => line.length)),
      stderr_bytes: Buffer.byteLength(result.stderr),
      still_serving: codeOf('still-serving') === 'result',
      ended: result.ended,
    };
  } finally {
    box.dispose();
  }
}

module.exports = {
  pipeline_ask_fan_out_broken_engine: askFanOutOnBrokenEngine,
  pipeline_cache_junk_replies: cacheOfJunkReplies,
  pipeline_hedge_race_all_slow: hedgeRaceAllSlow,
  pipeline_stdio_hostile_envelopes: stdioHostileEnvelopes,
};
