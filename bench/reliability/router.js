// Probes of `system1 serve-openai` (the OpenAI-compatible router) as a client, a misconfiguration or an
// attacker meets it: an upstream that is the router itself, bodies past the limit, slow clients, a blank
// token, a foreign Host, hop-by-hop headers, a huge property name, and shadow mode's big or broken answers.
'use strict';
const { createServer, request } = require('node:http');
const { connect, createServer: createTcpServer } = require('node:net');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { sandbox, launch, jsonLines, sleep, mib } = require('./child');

const MIB = 1024 * 1024;
/** A structured-output request the mock engine can answer: one field, two choices. */
const STRUCTURED = {
  model: 'gpt-slow',
  messages: [{ role: 'user', content: 'Rerun the flaky pipeline or block the merge?' }],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'Verdict',
      strict: true,
      schema: {
        type: 'object',
        properties: { verdict: { type: 'string', enum: ['rerun', 'block'] } },
        required: ['verdict'],
        additionalProperties: false,
      },
    },
  },
};
const PLAIN = { model: 'gpt-slow', messages: [{ role: 'user', content: 'hello' }] };

/**
 * The slow model: 127.0.0.1, answers every POST with a small chat completion (after `delayMs`), drains bodies
 * without keeping them, and records each request's headers. `answer(req, res)` replaces the answer.
 */
async function upstream({ delayMs = 0, answer } = {}) {
  const hits = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk) => (bytes += chunk.length));
    req.on('end', async () => {
      hits.push({ url: req.url, headers: req.headers, bytes });
      if (delayMs) await sleep(delayMs);
      if (answer) return answer(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'gpt-slow',
          choices: [
            { index: 0, message: { role: 'assistant', content: '{"verdict":"rerun"}' }, finish_reason: 'stop' },
          ],
        }),
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    hits,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

/** A port free a moment ago (for a router that must know its own port before it starts). */
function freePort() {
  return new Promise((resolve) => {
    const server = createTcpServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `serve-openai` with `args`; resolves with { url, launched } once it says where it listens, or with
 * { launched, refused } when it exits (or is killed) first.
 */
async function serve(main, box, args, { env = {}, killAfterMs } = {}) {
  const launched = launch(main, ['serve-openai', ...args], {
    env: box.env({ SYSTEM1_PROVIDER: 'mock', ...env }),
    cwd: box.dir,
    killAfterMs,
  });
  for (;;) {
    const match = /listening on (http:\/\/\S+\/v1)/.exec(launched.stderrSoFar());
    if (match) return { url: match[1], launched };
    if (launched.child.exitCode !== null || launched.child.signalCode !== null) return { launched, refused: true };
    await sleep(25);
  }
}

/**
 * One HTTP request; resolves with { status, headers, body } or { error } (the client's error code), never
 * rejects. `body` is sent whole, or `stream` (a Buffer) `times` times with Content-Length set to match.
 */
function send(url, { method = 'POST', headers = {}, body, stream, times = 1, timeoutMs = 4_000, maxHeaderSize } = {}) {
  return new Promise((resolve) => {
    const target = new URL(url);
    const payload =
      body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const length = stream ? stream.length * times : (payload?.length ?? 0);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method,
        headers: { 'content-type': 'application/json', 'content-length': String(length), ...headers },
        ...(maxHeaderSize && { maxHeaderSize }),
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (error) => resolve({ status: res.statusCode, error: error.code ?? error.message }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('no answer'), { code: 'no answer' })));
    req.on('error', (error) => resolve({ error: error.code ?? error.message }));
    if (!stream) return req.end(payload);
    let sent = 0;
    const pump = () => {
      while (sent < times) {
        sent += 1;
        if (!req.write(stream)) return req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const outcome = (answer) => (answer.status !== undefined ? answer.status : answer.error);

/** The router pointed at its own address (issue 17: ~17,000 descriptors and 636 MB in 2 s). */
async function selfUpstream(main) {
  const box = sandbox();
  try {
    const port = await freePort();
    const started = await serve(main, box, ['--port', String(port), '--upstream', `http://127.0.0.1:${port}/v1`], {
      killAfterMs: 4_000,
    });
    if (started.refused) {
      const result = await started.launched.done;
      return {
        started: false,
        exit_code: result.exit_code,
        ended: result.ended,
        says_why: /this router itself/.test(result.stderr),
        client: null,
        peak_fds: null,
        peak_rss_mib: mib(result.peak_rss_mib),
      };
    }
    const answer = send(`${started.url}/chat/completions`, { body: PLAIN, timeoutMs: 2_000 });
    await sleep(2_000);
    started.launched.kill();
    const [client, result] = await Promise.all([answer, started.launched.done]);
    return {
      started: true,
      exit_code: result.exit_code,
      ended: result.ended,
      says_why: false,
      client: outcome(client),
      peak_fds: result.peak_fds,
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

/** Two routers, each the other's upstream (issue 17: no hop header, so the request loops between them). */
async function mutualUpstreams(main) {
  const box = sandbox();
  try {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await serve(main, box, ['--port', String(portA), '--upstream', `http://127.0.0.1:${portB}/v1`], {
      killAfterMs: 5_000,
    });
    const b = await serve(main, box, ['--port', String(portB), '--upstream', `http://127.0.0.1:${portA}/v1`], {
      killAfterMs: 5_000,
    });
    let client = null;
    if (!a.refused && !b.refused) {
      client = outcome(await send(`${a.url}/chat/completions`, { body: PLAIN, timeoutMs: 2_000 }));
    }
    a.launched.kill();
    b.launched.kill();
    const [ra, rb] = await Promise.all([a.launched.done, b.launched.done]);
    return {
      client,
      peak_fds: Math.max(ra.peak_fds || 0, rb.peak_fds || 0),
      peak_rss_mib: mib(Math.max(ra.peak_rss_mib || 0, rb.peak_rss_mib || 0)),
    };
  } finally {
    box.dispose();
  }
}

/** A router over a fake upstream, for the probes that talk to one. */
async function withRouter(main, { args = [], env = {}, config, upstreamOptions, killAfterMs = 10_000 } = {}, probe) {
  const box = sandbox();
  const slow = await upstream(upstreamOptions);
  try {
    const configEnv = config ? { SYSTEM1_CONFIG: box.file('config.toml', config(box)) } : {};
    const started = await serve(main, box, ['--port', '0', '--upstream', slow.url, ...args], {
      env: { ...configEnv, ...env },
      killAfterMs,
    });
    if (started.refused) {
      const result = await started.launched.done;
      return { started: false, exit_code: result.exit_code, ended: result.ended, stderr: result.stderr };
    }
    try {
      return { started: true, ...(await probe({ url: started.url, slow, box, launched: started.launched })) };
    } finally {
      started.launched.kill();
      await started.launched.done;
    }
  } finally {
    await slow.stop();
    box.dispose();
  }
}

/** A body declared over the 64 MiB limit (65 MiB, streamed): can the client read the 413? */
function bodyOverLimit(main) {
  return withRouter(main, {}, async ({ url }) => {
    const answer = await send(`${url}/chat/completions`, {
      stream: Buffer.alloc(MIB, 0x20),
      times: 65,
      timeoutMs: 8_000,
    });
    return {
      body_mib: 65,
      client: outcome(answer),
      readable_413: answer.status === 413 && answer.body !== undefined && answer.body.length > 0,
    };
  });
}

/** Four 60 MB bodies at once, the upstream answering after 1 s: the router's peak RSS and the statuses. */
function concurrentBodies(main) {
  return withRouter(main, { upstreamOptions: { delayMs: 1_000 } }, async ({ url, launched }) => {
    const before = launched.sample().rss_mib;
    const chunk = Buffer.alloc(MIB, 0x20);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => send(`${url}/chat/completions`, { stream: chunk, times: 60, timeoutMs: 8_000 })),
    );
    const peak = launched.sample().peak_rss_mib;
    await sleep(1_000);
    const after = launched.sample().rss_mib;
    return {
      bodies: 4,
      body_mb: mib((60 * MIB) / 1e6),
      statuses: answers.map(outcome),
      rss_before_mib: mib(before),
      rss_peak_mib: mib(peak),
      rss_1_s_after_mib: mib(after),
    };
  });
}

/**
 * 300 connections that send half a request's headers and stop: how many the router closed at once (the
 * connection cap) and how many it still holds 12 s later (past a 10 s header timeout).
 */
function slowClients(main) {
  return withRouter(main, { killAfterMs: 20_000 }, async ({ url }) => {
    const { hostname, port } = new URL(url);
    const closed = new Set();
    const sockets = Array.from({ length: 300 }, () => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      socket.on('close', () => closed.add(socket));
      socket.resume(); // read what the router sends (a 408) and its close, or 'close' never comes
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`);
      return socket;
    });
    const open = () => sockets.length - closed.size;
    await sleep(1_500);
    const openAtOnce = open();
    await sleep(10_500);
    const openAt12s = open();
    for (const socket of sockets) socket.destroy();
    return { connections: sockets.length, open_after_1_5_s: openAtOnce, open_after_12_s: openAt12s };
  });
}

/** SYSTEM1_ROUTER_TOKEN='   ' (issue 17: auth silently off): does it start, and does a tokenless call pass? */
function blankToken(main) {
  return withRouter(main, { env: { SYSTEM1_ROUTER_TOKEN: '   ' } }, async ({ url }) => {
    const answer = await send(`${url}/chat/completions`, { body: PLAIN });
    return { tokenless_call: outcome(answer) };
  }).then((result) => ({
    started: result.started,
    exit_code: result.exit_code ?? null,
    ended: result.ended ?? 'stopped by the probe',
    says_why: /blank/.test(result.stderr ?? ''),
    tokenless_call: result.tokenless_call ?? null,
  }));
}

/** A request whose Host is another name (a DNS-rebinding page's): answered or refused? */
function foreignHost(main) {
  return withRouter(main, {}, async ({ url, slow }) => {
    const { port } = new URL(url);
    const answer = await send(`${url}/chat/completions`, { body: PLAIN, headers: { host: `rebind.example:${port}` } });
    return { status: outcome(answer), reached_upstream: slow.hits.length > 0 };
  });
}

/** A header named in Connection (hop-by-hop) and the hop header: what did the upstream receive? */
function hopByHop(main) {
  return withRouter(main, {}, async ({ url, slow }) => {
    const answer = await send(`${url}/chat/completions`, {
      body: PLAIN,
      headers: { connection: 'keep-alive, x-hop-secret', 'x-hop-secret': 'hop-value' },
    });
    const seen = slow.hits[0]?.headers ?? {};
    return { status: outcome(answer), named_header_forwarded: 'x-hop-secret' in seen, via_added: 'via' in seen };
  });
}

/** A structured request whose one property is named with 20,000 characters: the route header's length. */
function longPropertyName(main) {
  return withRouter(main, {}, async ({ url }) => {
    const name = 'p'.repeat(20_000);
    const body = {
      ...STRUCTURED,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'Long',
          schema: { type: 'object', properties: { [name]: { type: 'string' } }, required: [name] },
        },
      },
    };
    const roomy = await send(`${url}/chat/completions`, { body, maxHeaderSize: 1024 * 1024 });
    const standard = await send(`${url}/chat/completions`, { body });
    return {
      property_chars: name.length,
      route_header_chars: roomy.headers?.['x-system1-route']?.length ?? null,
      default_client: outcome(standard),
    };
  });
}

/**
 * Shadow mode with slow answers the router cannot compare: one over 8 MB, one whose stream breaks. Are
 * they in the shadow log (as "unavailable"), or gone from it?
 */
function shadowUnavailable(main) {
  let served = 0;
  const answer = (req, res) => {
    served += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (served === 1) {
      res.end(
        JSON.stringify({
          id: 'big',
          object: 'chat.completion',
          padding: 'x'.repeat(9 * MIB),
          choices: [
            { index: 0, message: { role: 'assistant', content: '{"verdict":"rerun"}' }, finish_reason: 'stop' },
          ],
        }),
      );
    } else {
      res.write('{"id":"broken","object":"chat.completion","choices":[');
      setTimeout(() => res.socket.destroy(), 50);
    }
  };
  return withRouter(
    main,
    {
      args: ['--shadow'],
      upstreamOptions: { answer },
      config: (box) => `[router]\nshadow_log = "${path.join(box.dir, 'shadow.jsonl')}"\n`,
    },
    async ({ url, box }) => {
      const answers = [
        await send(`${url}/chat/completions`, { body: STRUCTURED }),
        await send(`${url}/chat/completions`, { body: STRUCTURED }),
      ];
      await sleep(500);
      let records = [];
      try {
        records = jsonLines(readFileSync(path.join(box.dir, 'shadow.jsonl'), 'utf8')).messages;
      } catch {
        // no shadow log written
      }
      return {
        requests: answers.length,
        client: answers.map(outcome),
        shadow_records: records.length,
        marked_unavailable: records.filter((record) => record.slow_unavailable).length,
      };
    },
  );
}

/** The headers a reverse proxy and a tracer add (one request each): answered fast, or sent to the slow model? */
function proxyHeaders(main) {
  const added = {
    'x-forwarded-for': '10.0.0.7',
    'x-real-ip': '10.0.0.7',
    forwarded: 'for=10.0.0.7;proto=https',
    'x-forwarded-proto': 'https',
    via: '1.1 lb',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  };
  return withRouter(main, {}, async ({ url, slow }) => {
    const sentSlow = [];
    for (const [name, value] of Object.entries(added)) {
      const before = slow.hits.length;
      await send(`${url}/chat/completions`, { body: STRUCTURED, headers: { [name]: value } });
      if (slow.hits.length > before) sentSlow.push(name);
    }
    return { headers: Object.keys(added).length, sent_slow: sentSlow.length, sent_to_slow_model: sentSlow };
  });
}

module.exports = {
  proxyHeaders,
  selfUpstream,
  mutualUpstreams,
  bodyOverLimit,
  concurrentBodies,
  slowClients,
  blankToken,
  foreignHost,
  hopByHop,
  longPropertyName,
  shadowUnavailable,
  serve,
  send,
  upstream,
  freePort,
  outcome,
  STRUCTURED,
  PLAIN,
  MIB,
  withRouter,
};
