// Probes of the engine client: names that look like loopback but go through DNS (checked from the config and
// the router's start-up only, so no name is ever looked up), a proxy refusing CONNECT, and an engine that
// echoes the API key back in an encoded form.
'use strict';
const { createServer } = require('node:http');
const { sandbox } = require('./child');
const { session, countById, INITIALIZE } = require('./mcp');
const { serve, upstream } = require('./router');

/** Endpoints that parse to the host `localhost.`, which DNS resolves (issue 17: counted as loopback). */
const DOTTED = ['http://localhost.:9', 'http://LocalHost.:9', 'http://localhost%2e:9'];
const KEY = 'cfTOKEN/with+slash-0123456789abcdef';
const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

/** One `mcp` session: the answers to `calls`, its stdout and stderr. */
async function answers(main, env, calls) {
  const s = session(main, env);
  await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
  const bodies = [];
  for (const [i, [name, args]] of calls.entries()) {
    s.send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } });
    await s.until((replies) => countById(replies, i + 1) >= 1, 8_000);
    bodies.push(s.replies().find((reply) => reply.id === i + 1)?.result?.structuredContent ?? null);
  }
  const result = await s.finish();
  return { bodies, result };
}

/**
 * laya at each dotted endpoint without allow_remote: does capabilities (which never calls the engine)
 * report a config error on the endpoint? And does the router start with such an upstream (no request sent)?
 */
async function dottedLocalhost(main) {
  let refused = 0;
  for (const endpoint of DOTTED) {
    const box = sandbox();
    try {
      const config = box.file(
        'config.toml',
        `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${endpoint}"\n`,
      );
      const { bodies } = await answers(main, box.env({ SYSTEM1_CONFIG: config }), [['system1_capabilities', {}]]);
      if ((bodies[0]?.config_errors ?? []).some((error) => /endpoint/.test(error.key))) refused += 1;
    } finally {
      box.dispose();
    }
  }
  const box = sandbox();
  try {
    const started = await serve(main, box, ['--port', '0', '--upstream', 'http://localhost.:9/v1'], {
      killAfterMs: 4_000,
    });
    started.launched.kill();
    const result = await started.launched.done;
    return {
      endpoints: DOTTED.length,
      endpoints_refused: refused,
      router_started_with_dotted_upstream: !started.refused,
      router_ended: result.ended,
    };
  } finally {
    box.dispose();
  }
}

/** A proxy on 127.0.0.1 that answers every CONNECT with 403 and counts them (it opens no tunnel). */
async function refusingProxy() {
  let connects = 0;
  const server = createServer((req, res) => res.writeHead(403).end('proxy policy: Forbidden'));
  server.on('connect', (req, socket) => {
    connects += 1;
    socket.end(
      'HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: 23\r\nconnection: close\r\n\r\nproxy policy: Forbidden',
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    connects: () => connects,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * TypeSafe (a hosted engine) behind HTTPS_PROXY, the proxy refusing CONNECT: what does the decision's error
 * say? (issue 17: "TypeSafe refused the API key", though the key was never sent.)
 */
async function proxyRefusal(main) {
  const proxy = await refusingProxy();
  const box = sandbox();
  try {
    const config = box.file(
      'config.toml',
      `[gateway]\nprovider = "typesafe"\n[providers.typesafe]\nendpoint = "https://api.typesafe.invalid"\n`,
    );
    const env = box.env({
      SYSTEM1_CONFIG: config,
      SYSTEM1_TYPESAFE_API_KEY: KEY,
      HTTPS_PROXY: proxy.url,
      https_proxy: proxy.url,
    });
    const { bodies } = await answers(main, env, [['system1_decide', ASK]]);
    const error = bodies[0]?.error ?? {};
    return {
      answered: bodies[0] !== null,
      connects_refused: proxy.connects(),
      error_code: error.code ?? null,
      blames_the_key: /refused the API key/i.test(error.message ?? ''),
      names_the_proxy: /proxy/i.test(error.message ?? '') && !/refused the API key/i.test(error.message ?? ''),
    };
  } finally {
    box.dispose();
    await proxy.stop();
  }
}

/** The key as an engine would echo it: base64 (of the key, and in a Basic pair), percent-encoded, JSON-escaped. */
const ECHOES = {
  base64: (key) => Buffer.from(key).toString('base64'),
  basic: (key) => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`,
  percent: (key) => encodeURIComponent(key),
  json_escaped: (key) => JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/'),
};

/**
 * A laya-shaped engine that answers 401 with the key echoed in one encoding per run: does that form reach
 * the decision's reply, health or stderr? (issue 17: only the literal key was scrubbed.)
 */
async function echoedKey(main) {
  const leaked = [];
  for (const [form, encode] of Object.entries(ECHOES)) {
    const echoed = encode(KEY);
    const engine = await upstream({
      answer: (req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: `invalid credentials: ${echoed}` }));
      },
    });
    const box = sandbox();
    try {
      const origin = new URL(engine.url).origin;
      const config = box.file(
        'config.toml',
        `[gateway]\nprovider = "laya"\nlog_level = "DEBUG"\n[providers.laya]\nendpoint = "${origin}"\n`,
      );
      const { result } = await answers(main, box.env({ SYSTEM1_CONFIG: config, SYSTEM1_LAYA_API_KEY: KEY }), [
        ['system1_decide', ASK],
        ['system1_health', {}],
      ]);
      const written = result.stdout + result.stderr;
      // As the engine wrote it, and as it reads inside a JSON string on stdout (the reply escapes quotes and slashes again).
      const forms = [echoed, JSON.stringify(echoed).slice(1, -1)];
      if (engine.hits.length > 0 && forms.some((text) => written.includes(text))) leaked.push(form);
      if (engine.hits.length === 0) leaked.push(`${form} (the engine was never asked)`);
    } finally {
      box.dispose();
      await engine.stop();
    }
  }
  return { forms: Object.keys(ECHOES).length, forms_leaked: leaked.length, leaked };
}

module.exports = { dottedLocalhost, proxyRefusal, echoedKey };
