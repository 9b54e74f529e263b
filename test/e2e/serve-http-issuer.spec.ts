/**
 * serve-http as an OAuth resource server in front of an issuer that may lie (test/fakes/issuer.fake.ts on
 * loopback): 256 MB discovery documents and key sets while 100 clients send tokens at once, a key-set
 * endpoint that fails while tokens with made-up key ids keep arriving, and tokens whose caller claim spells
 * a static caller's name. No valid token is needed for the first two: each is one unauthenticated client.
 */
import { readFileSync } from 'node:fs';
import { requireBuild, Sandbox } from './helpers/gateway';
import { HttpServerProcess, stopAll } from './helpers/http-server-process';
import { FakeIssuer } from '../fakes/issuer.fake';
import { freePort } from '../helpers/router-harness';

type Json = Record<string, any>;
const STATIC_TOKENS = { SYSTEM1_HTTP_TOKEN: 'tok-default-3b9e', SYSTEM1_HTTP_TOKEN_ALICE: 'tok-alice-62d1' };
const QUESTION = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const PEAK_RSS_LIMIT_MIB = 200;

async function callTool(url: string, token: string, name: string, args: Json = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

/** The server's peak resident memory so far (Linux's high-water mark), in MiB. */
function peakRssMiB(server: HttpServerProcess): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

beforeAll(() => requireBuild());
const sandbox = new Sandbox();
const started: HttpServerProcess[] = [];
let issuer: FakeIssuer;
beforeEach(async () => {
  issuer = await FakeIssuer.start();
});
afterEach(async () => {
  await stopAll(started.splice(0), []);
  await issuer.stop();
});
afterAll(() => sandbox.dispose());

async function serveHttp(extraConfig: string[] = []): Promise<{ server: HttpServerProcess; audience: string }> {
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const config = [
    '[gateway]',
    'provider = "mock"',
    'cache_ttl_s = 60',
    ...extraConfig,
    '[http.oauth]',
    `issuer = "${issuer.issuer}"`,
    `audience = "${audience}"`,
    'clock_skew_s = 0',
  ].join('\n');
  const server = await HttpServerProcess.start(
    sandbox,
    { ...STATIC_TOKENS, SYSTEM1_CONFIG: sandbox.writeConfig(config, `issuer-${port}.toml`) },
    ['--port', String(port)],
  );
  started.push(server);
  return { server, audience };
}

describe('serve-http against an issuer that lies', () => {
  it.each([
    ['discovery document', 'discoveryMode'],
    ['key set', 'jwksMode'],
  ] as const)(
    `stays under ${PEAK_RSS_LIMIT_MIB} MB while the issuer serves a 256 MB %s and 100 clients send tokens at once`,
    async (_, document) => {
      issuer[document] = 'huge';
      const { server, audience } = await serveHttp();
      const tokens = await Promise.all(
        Array.from({ length: 100 }, (_, i) => issuer.token({ sub: `client-${i}`, scope: 'system1:read' }, audience)),
      );
      const answers = await Promise.all(tokens.map((token) => callTool(server.url, token, 'system1_health')));
      expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(401));
      expect(answers[0].headers.get('www-authenticate')).toContain('larger than 262144 bytes');
      expect(peakRssMiB(server)).toBeLessThan(PEAK_RSS_LIMIT_MIB);
      // Everyone else is still served.
      const decided = await callTool(server.url, STATIC_TOKENS.SYSTEM1_HTTP_TOKEN, 'system1_decide', QUESTION);
      expect(decided.body.result?.structuredContent?.status).toBe('decided');
    },
  );

  it('asks a failing key-set endpoint at most once per 2 s while tokens with made-up key ids keep arriving', async () => {
    issuer.jwksMode = 'failing';
    const { server, audience } = await serveHttp();
    const madeUp = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        issuer.token({ sub: 'x', scope: 'system1:read' }, audience, { kid: `k${i}` }),
      ),
    );
    const started = Date.now();
    const atOnce = await Promise.all(madeUp.map((token) => callTool(server.url, token, 'system1_health')));
    const oneByOne = [];
    for (const token of madeUp) oneByOne.push(await callTool(server.url, token, 'system1_health'));
    const windows = Math.ceil((Date.now() - started) / 2000);
    expect([...atOnce, ...oneByOne].every((answer) => answer.status === 401)).toBe(true);
    expect(issuer.fetches.jwks).toBeGreaterThanOrEqual(1);
    expect(issuer.fetches.jwks).toBeLessThanOrEqual(windows);
  });

  it("gives a token whose caller claim is default, or a static caller's name, a bucket and a cache of its own", async () => {
    const { server, audience } = await serveHttp([
      '[http]',
      'rate_per_minute = 1',
      'burst = 1',
      '[http.callers.alice]',
      'rate_per_minute = 1',
      'burst = 1',
    ]);
    const outcomes = async (token: string) => {
      const answer = await callTool(server.url, token, 'system1_decide', QUESTION);
      return answer.status === 200
        ? answer.body.result?.structuredContent?.attempts?.map((attempt: Json) => attempt.outcome)
        : answer.status;
    };
    const scopes = 'system1:decide system1:read';
    const oauthDefault = await issuer.token({ sub: 'default', scope: scopes }, audience);
    const oauthAlice = await issuer.token({ sub: 'alice', scope: scopes }, audience);
    expect(await outcomes(STATIC_TOKENS.SYSTEM1_HTTP_TOKEN)).toEqual(['ok']);
    expect(await outcomes(STATIC_TOKENS.SYSTEM1_HTTP_TOKEN_ALICE)).toEqual(['ok']);
    // Neither the static callers' rate nor their cached answers are the OAuth subjects' to spend or read.
    expect(await outcomes(oauthDefault)).toEqual(['ok']);
    expect(await outcomes(oauthAlice)).toEqual(['ok']);
    // Each bucket held one decision: the second of each is refused, for its own caller alone.
    expect(await outcomes(STATIC_TOKENS.SYSTEM1_HTTP_TOKEN)).toBe(429);
    expect(await outcomes(oauthAlice)).toBe(429);
    const log = await server.waitForStderr(/caller=oauth:alice/);
    expect(log).toMatch(/caller=oauth:default/);
  });
});
