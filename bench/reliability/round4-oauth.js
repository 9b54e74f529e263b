// Round four (issue 39): serve-http as an OAuth resource server in front of an issuer that lies, and the
// callers an issuer's tokens name. Each probe starts `serve-http` on 127.0.0.1 with `[http.oauth]` pointing at
// the fake issuer of test/fakes/issuer.fake.ts (compiled to dist-fakes/), sends what one unauthenticated
// client or one token holder would, and records what the server and everyone else then see.
'use strict';
const path = require('node:path');
const { launch, sandbox, sleep, mib } = require('./child');
const { send } = require('./router');

const ROOT = path.resolve(__dirname, '..', '..');
const STATIC_TOKEN = 'reliability-static-token-8c1f';
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const DECIDE = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

const fakeIssuer = () => require(path.join(ROOT, 'dist-fakes', 'issuer.fake.js')).FakeIssuer.start();

/** serve-http over the mock, trusting `issuer`'s tokens; resolves with its origin and audience, or `refused`. */
async function serveHttp(main, box, issuer, extraConfig = []) {
  const config = box.file(
    'oauth.toml',
    [
      '[gateway]',
      'provider = "mock"',
      'cache_ttl_s = 60',
      ...extraConfig,
      '[http.oauth]',
      `issuer = "${issuer.issuer}"`,
      // The audience is checked against tokens only: this probe's tokens name it, whatever the port.
      'audience = "http://127.0.0.1/mcp"',
      'clock_skew_s = 0',
    ].join('\n'),
  );
  const launched = launch(main, ['serve-http', '--port', '0'], {
    env: box.env({ SYSTEM1_HTTP_TOKEN: STATIC_TOKEN, SYSTEM1_CONFIG: config }),
    cwd: box.dir,
    killAfterMs: 60_000,
  });
  for (;;) {
    const match = /listening on (http:\/\/\S+)\/mcp/.exec(launched.stderrSoFar());
    if (match) return { origin: match[1], audience: 'http://127.0.0.1/mcp', launched };
    if (launched.child.exitCode !== null || launched.child.signalCode !== null) return { launched, refused: true };
    await sleep(25);
  }
}

let nextId = 1;
/** One tools/call with `token`: its HTTP status, the decision's status or attempts, and the challenge. */
async function call(origin, token, name, args = {}, path = '/mcp') {
  const answer = await send(`${origin}${path}`, {
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
    timeoutMs: 15_000,
  });
  let result;
  try {
    result = JSON.parse(answer.body ?? '').result?.structuredContent;
  } catch {
    result = undefined;
  }
  return { status: answer.status ?? answer.error, challenge: answer.headers?.['www-authenticate'], result };
}

/** Starts the fake issuer and the server, runs `probe`, stops both. */
async function withIssuer(main, setUp, probe, extraConfig) {
  const issuer = await fakeIssuer();
  setUp(issuer);
  const box = sandbox();
  try {
    const server = await serveHttp(main, box, issuer, extraConfig);
    if (server.refused) return { started: false, ended: (await server.launched.done).ended };
    try {
      return await probe(server, issuer);
    } finally {
      server.launched.kill();
      await server.launched.done;
    }
  } finally {
    box.dispose();
    await issuer.stop();
  }
}

const counts = (values) => values.reduce((all, value) => ({ ...all, [value]: (all[value] ?? 0) + 1 }), {});

/** 100 clients at once, each with a token of its own, while the issuer serves a 256 MB `document`. */
const hugeDocument = (document) => async (main) =>
  withIssuer(
    main,
    (issuer) => (issuer[document] = 'huge'),
    async ({ origin, audience, launched }, issuer) => {
      const tokens = await Promise.all(
        Array.from({ length: 100 }, (_, i) => issuer.token({ sub: `client-${i}`, scope: 'system1:read' }, audience)),
      );
      const answers = await Promise.all(tokens.map((token) => call(origin, token, 'system1_health')));
      const after = await call(origin, STATIC_TOKEN, 'system1_decide', DECIDE);
      return {
        statuses: counts(answers.map((answer) => answer.status)),
        peak_rss_mib: mib(launched.sample().peak_rss_mib),
        issuer_mib_sent: mib(issuer.bytesSent / 1024 / 1024),
        static_caller_after: after.result?.status ?? after.status,
      };
    },
  );

/** The key-set endpoint answers 500; 30 tokens with made-up key ids at once, then 30 one by one. */
async function failingKeySet(main) {
  return withIssuer(
    main,
    (issuer) => (issuer.jwksMode = 'failing'),
    async ({ origin, audience }, issuer) => {
      const tokens = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          issuer.token({ sub: 'x', scope: 'system1:read' }, audience, { kid: `k${i}` }),
        ),
      );
      const started = Date.now();
      await Promise.all(tokens.map((token) => call(origin, token, 'system1_health')));
      for (const token of tokens) await call(origin, token, 'system1_health');
      return {
        tokens_sent: 60,
        jwks_fetches: issuer.fetches.jwks,
        two_second_windows: Math.ceil((Date.now() - started) / 2000),
      };
    },
  );
}

/** The static caller `default` decides once (rate 1 a minute, burst 1), then a token whose `sub` is `default`. */
async function defaultClaim(main) {
  return withIssuer(
    main,
    () => undefined,
    async ({ origin, audience }, issuer) => {
      const token = await issuer.token({ sub: 'default', scope: 'system1:decide system1:read' }, audience);
      const staticFirst = await call(origin, STATIC_TOKEN, 'system1_decide', DECIDE);
      const oauth = await call(origin, token, 'system1_decide', DECIDE);
      return {
        static_caller: staticFirst.result?.attempts?.map((attempt) => attempt.outcome).join() ?? staticFirst.status,
        oauth_default: oauth.result?.attempts?.map((attempt) => attempt.outcome).join() ?? oauth.status,
      };
    },
    ['[http]', 'rate_per_minute = 1', 'burst = 1'],
  );
}

/** A valid header token and `?ACCESS_TOKEN=` in the URL beside it. */
async function upperCaseQueryToken(main) {
  return withIssuer(
    main,
    () => undefined,
    async ({ origin }) => {
      const statuses = {};
      for (const name of ['access_token', 'ACCESS_TOKEN', 'Access_Token'])
        statuses[name] = (
          await call(origin, STATIC_TOKEN, 'system1_health', {}, `/mcp?${name}=${STATIC_TOKEN}`)
        ).status;
      return statuses;
    },
  );
}

module.exports = {
  oauth_huge_discovery: hugeDocument('discoveryMode'),
  oauth_huge_jwks: hugeDocument('jwksMode'),
  oauth_failing_jwks: failingKeySet,
  oauth_default_claim: defaultClaim,
  oauth_query_token_any_case: upperCaseQueryToken,
};
