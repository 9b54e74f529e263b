/**
 * Who is calling serve-http: named static tokens (SYSTEM1_HTTP_TOKEN_<NAME>), each caller's tools, models
 * and rate (`[http.callers.<name>]`), the caller in every access-log line and in /metrics, and serve-http as
 * an OAuth 2.1 resource server in front of a real authorization server (oidc-provider, on loopback).
 */
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { requireBuild, runCli, Sandbox } from './helpers/gateway';
import { HttpServerProcess, stopAll, structured } from './helpers/http-server-process';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { eventuallyRead } from '../helpers/eventually';

const QUESTION = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const TOKENS = {
  SYSTEM1_HTTP_TOKEN: 'tok-default-7f2a',
  SYSTEM1_HTTP_TOKEN_ALICE: 'tok-alice-91c3',
  SYSTEM1_HTTP_TOKEN_BOB: 'tok-bob-4d8e',
};
type Json = Record<string, any>;

/** One 2025-era MCP request as any Streamable HTTP client sends it; the answer's status, headers and body. */
async function post(
  url: string,
  token: string | undefined,
  message: Json,
  extraPath = '',
): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(url + extraPath, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

const callTool = (url: string, token: string | undefined, name: string, args: Json = {}) =>
  post(url, token, { method: 'tools/call', params: { name, arguments: args } });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(() => requireBuild());
/** The servers a test started, stopped after it. */
const started: HttpServerProcess[] = [];
afterEach(() => stopAll(started.splice(0), []));

describe('named callers with static tokens', () => {
  const sandbox = new Sandbox();
  afterAll(() => sandbox.dispose());
  const config = [
    '[gateway]',
    'provider = "mock"',
    '[http.callers.alice]',
    'rate_per_minute = 6',
    'burst = 2',
    '[http.callers.bob]',
    'tools = ["system1_health"]',
    '[http.callers.carol]',
    'caller_models = ["mock:*"]',
  ].join('\n');

  it('tells callers apart by token: each one named in the access log and /metrics, a tool outside its policy refused, never a token in the log', async () => {
    const server = await HttpServerProcess.start(sandbox, {
      ...TOKENS,
      SYSTEM1_HTTP_TOKEN_CAROL: 'tok-carol-0b6f',
      SYSTEM1_CONFIG: sandbox.writeConfig(config, 'callers.toml'),
    });
    started.push(server);
    expect(server.stderr()).toMatch(/bearer tokens of 4 caller\(s\): (?=.*alice)(?=.*bob)(?=.*carol)(?=.*default)/);
    for (const [token, id] of [
      [TOKENS.SYSTEM1_HTTP_TOKEN, 'by-default'],
      [TOKENS.SYSTEM1_HTTP_TOKEN_ALICE, 'by-alice'],
    ]) {
      const decided = await callTool(server.url, token, 'system1_decide', { ...QUESTION, request_id: id });
      expect([decided.status, decided.body.result?.structuredContent?.status]).toEqual([200, 'decided']);
    }
    await server.waitForStderr(/by-default POST \/mcp tools\/call system1_decide -> 200 \(\d+ ms\) caller=default/);
    await server.waitForStderr(/by-alice POST \/mcp tools\/call system1_decide -> 200 \(\d+ ms\) caller=alice/);

    const bob = await callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN_BOB, 'system1_decide', QUESTION);
    expect([bob.status, bob.body.error?.message]).toEqual([
      403,
      expect.stringContaining('the caller "bob" may not use system1_decide (it may use: system1_health)'),
    ]);
    expect((await callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN_BOB, 'system1_health')).status).toBe(200);
    expect((await callTool(server.url, 'tok-nobody', 'system1_health')).status).toBe(401);

    // carol may choose any model of mock (past the allow-list, mock itself then says it runs one model); the others only the chain's own
    const chosen = {
      state: 'a refund request',
      questions: [
        { id: 'q', type: 'choice', instructions: 'Which team?', criteria: { billing: null, shipping: null } },
      ],
      model: { provider: 'mock', model: 'mock-2' },
    };
    const byCarol = await callTool(server.url, 'tok-carol-0b6f', 'system1_ask', chosen);
    expect(byCarol.body.result?.structuredContent?.answers?.q?.error?.message).toBe(
      'provider "mock" is not usable: mock runs one model only (it has no model setting)',
    );
    const byAlice = await callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN_ALICE, 'system1_ask', chosen);
    expect(JSON.stringify(byAlice.body.result?.structuredContent)).toContain(
      'model is not one that callers may choose here (allowed: mock; the operator adds more with [http.callers.alice] caller_models)',
    );

    const metrics = await fetch(server.urlOf('/metrics'), {
      headers: { authorization: `Bearer ${TOKENS.SYSTEM1_HTTP_TOKEN_BOB}` },
    });
    const samples = parsePrometheusText(await metrics.text());
    expect(
      sampleValue(samples, 'system1_decisions_total', {
        surface: 'system1_decide',
        status: 'answered',
        provider: 'mock',
        caller: 'alice',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'system1_decisions_total', {
        surface: 'system1_decide',
        status: 'answered',
        provider: 'mock',
        caller: 'default',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'system1_decisions_total', {
        surface: 'system1_ask',
        status: 'error',
        provider: 'none',
        caller: 'carol',
      }),
    ).toBe(1);
    for (const token of Object.values(TOKENS)) expect(server.stderr()).not.toContain(token);
  });

  it('holds a caller to its rate with 429 and Retry-After while the others keep deciding at full speed', async () => {
    const server = await HttpServerProcess.start(sandbox, {
      ...TOKENS,
      SYSTEM1_CONFIG: sandbox.writeConfig(config, 'callers.toml'),
    });
    started.push(server);
    const runaway = await Promise.all(
      Array.from({ length: 40 }, () =>
        callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN_ALICE, 'system1_decide', QUESTION),
      ),
    );
    const statuses = runaway.map((answer) => answer.status);
    // burst 2: two decisions at once, then one every 10 s
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(38);
    const limited = runaway.find((answer) => answer.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body.error.message).toContain('the caller "alice" is over its rate (6 decisions a minute, burst 2)');
    // health is not a decision, and another caller has its own bucket
    expect((await callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN_ALICE, 'system1_health')).status).toBe(200);
    const others = await Promise.all(
      Array.from({ length: 30 }, () => callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN, 'system1_decide', QUESTION)),
    );
    expect(others.map((answer) => answer.body.result?.structuredContent?.status)).toEqual(Array(30).fill('decided'));
  });

  it('refuses a caller the tools its table leaves out, health and capabilities as well as decisions, naming the tool', async () => {
    const token = 'tok-ci-3a7e52';
    const server = await HttpServerProcess.start(sandbox, {
      SYSTEM1_HTTP_TOKEN_CI: token,
      SYSTEM1_CONFIG: sandbox.writeConfig(
        '[gateway]\nprovider = "mock"\n[http.callers.ci]\ntools = ["system1_decide"]\n',
        'decide-only.toml',
      ),
    });
    started.push(server);
    for (const tool of ['system1_health', 'system1_capabilities', 'system1_ask']) {
      const refused = await callTool(server.url, token, tool);
      expect([refused.status, refused.body.error?.message, refused.body.result]).toEqual([
        403,
        expect.stringContaining(`the caller "ci" may not use ${tool} (it may use: system1_decide)`),
        undefined,
      ]);
    }
    const decided = await callTool(server.url, token, 'system1_decide', QUESTION);
    expect(decided.body.result?.structuredContent?.status).toBe('decided');
  });

  it("keeps each caller's cached answers to itself: a repeat is answered from the cache for its caller only", async () => {
    const server = await HttpServerProcess.start(sandbox, {
      ...TOKENS,
      SYSTEM1_CONFIG: sandbox.writeConfig('[gateway]\nprovider = "mock"\ncache_ttl_s = 60\n', 'cache.toml'),
    });
    started.push(server);
    const outcomes = async (token: string) =>
      (await callTool(server.url, token, 'system1_decide', QUESTION)).body.result?.structuredContent?.attempts?.map(
        (attempt: Json) => attempt.outcome,
      );
    expect(await outcomes(TOKENS.SYSTEM1_HTTP_TOKEN_ALICE)).toEqual(['ok']);
    expect(await outcomes(TOKENS.SYSTEM1_HTTP_TOKEN_ALICE)).toEqual(['cached']);
    expect(await outcomes(TOKENS.SYSTEM1_HTTP_TOKEN_BOB)).toEqual(['ok']);
  });

  it('refuses to start when two callers share a token or a caller table names a tool that does not exist, naming the variables and never the token', async () => {
    const shared = await runCli(
      ['serve-http', '--port', '0'],
      sandbox.env({ SYSTEM1_HTTP_TOKEN_ALICE: 'same-token-5e1', SYSTEM1_HTTP_TOKEN_BOB: 'same-token-5e1' }),
      20_000,
    );
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain('SYSTEM1_HTTP_TOKEN_ALICE and SYSTEM1_HTTP_TOKEN_BOB hold the same token');
    expect(shared.stderr).not.toContain('same-token-5e1');
    const badTool = await runCli(
      ['serve-http', '--port', '0'],
      sandbox.env({
        SYSTEM1_CONFIG: sandbox.writeConfig('[http.callers.dave]\ntools = ["system1_decde"]\n', 'bad-tool.toml'),
      }),
      20_000,
    );
    expect([badTool.code, badTool.stderr]).toEqual([
      2,
      expect.stringContaining('[http.callers.dave] tools: "system1_decde" is not a tool'),
    ]);
  });
});

/** oidc-provider in its own process (helpers/authorization-server.mjs); its issuer URL once it listens. */
class AuthorizationServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly issuer: string,
  ) {}

  static start(): Promise<AuthorizationServer> {
    const child = spawn(process.execPath, [path.join(__dirname, 'helpers', 'authorization-server.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const line = output.split('\n').find((text) => text.startsWith('{'));
        if (line) resolve(new AuthorizationServer(child, JSON.parse(line).issuer));
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.once('exit', (code) => reject(new Error(`the authorization server exited with ${code}: ${output}`)));
    });
  }

  /** A token by the client-credentials grant, for `resource`. */
  async token(client: string, resource: string, scope = 'system1:decide system1:ask system1:read'): Promise<string> {
    const response = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client}:secret-${client}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
    });
    const body = (await response.json()) as Json;
    if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  async rotate(): Promise<void> {
    await fetch(`${this.issuer}/test/rotate`, { method: 'POST' });
  }

  async jwksFetches(): Promise<number> {
    return ((await (await fetch(`${this.issuer}/test/stats`)).json()) as Json).jwksFetches;
  }

  stop(): void {
    this.child.kill();
  }
}

describe('serve-http as an OAuth 2.1 resource server', () => {
  const sandbox = new Sandbox();
  let issuer: AuthorizationServer;
  let foreign: AuthorizationServer;
  let server: HttpServerProcess;
  let audience: string;
  beforeAll(async () => {
    [issuer, foreign] = await Promise.all([AuthorizationServer.start(), AuthorizationServer.start()]);
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    const config = [
      '[gateway]',
      'provider = "mock"',
      '[http.oauth]',
      `issuer = "${issuer.issuer}"`,
      `audience = "${audience}"`,
      'caller_claim = "client_id"',
      'clock_skew_s = 0',
    ].join('\n');
    server = await HttpServerProcess.start(
      sandbox,
      { SYSTEM1_HTTP_TOKEN: TOKENS.SYSTEM1_HTTP_TOKEN, SYSTEM1_CONFIG: sandbox.writeConfig(config, 'oauth.toml') },
      ['--port', String(port)],
    );
  }, 60_000);
  afterAll(async () => {
    server?.kill();
    issuer?.stop();
    foreign?.stop();
    sandbox.dispose();
  });

  it('answers 401 with the metadata pointer, and publishes RFC 9728 metadata naming the issuer and the scopes', async () => {
    const refused = await callTool(server.url, undefined, 'system1_health');
    const metadataUrl = `http://127.0.0.1:${server.port}/.well-known/oauth-protected-resource/mcp`;
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([
      401,
      `Bearer resource_metadata="${metadataUrl}"`,
    ]);
    const metadata = (await (await fetch(metadataUrl)).json()) as Json;
    expect(metadata).toEqual({
      resource: audience,
      authorization_servers: [issuer.issuer],
      scopes_supported: ['system1:decide', 'system1:ask', 'system1:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'System-1 Gateway',
    });
    expect(await (await fetch(server.urlOf('/.well-known/oauth-protected-resource'))).json()).toEqual(metadata);
  });

  it('lets the MCP SDK client in end to end: discovery from the 401, a client-credentials token for this resource, then a decision', async () => {
    const client = new Client({ name: 'system1-e2e-oauth', version: '0.0.0' });
    const authProvider = new ClientCredentialsProvider({
      clientId: 'team-agent',
      clientSecret: 'secret-team-agent',
      scope: 'system1:decide system1:ask system1:read',
      expectedIssuer: issuer.issuer,
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider }));
    const decided = structured(
      await client.callTool({ name: 'system1_decide', arguments: { ...QUESTION, request_id: 'oauth-sdk-1' } }),
    );
    expect(decided.status).toBe('decided');
    await client.close();
    await server.waitForStderr(
      /oauth-sdk-1 POST \/mcp tools\/call system1_decide -> 200 \(\d+ ms\) caller=oauth:team-agent/,
    );
  });

  it('refuses a token for another audience, an expired one, one from another issuer and one in the query string, saying why and never echoing it', async () => {
    const elsewhere = await callTool(
      server.url,
      await issuer.token('team-agent', 'http://127.0.0.1:1/other'),
      'system1_health',
    );
    expect([elsewhere.status, elsewhere.headers.get('www-authenticate')]).toEqual([
      401,
      expect.stringContaining(
        'error="invalid_token", error_description="the token was issued for another resource (audience)"',
      ),
    ]);

    const shortLived = await issuer.token('short-lived', audience);
    expect((await callTool(server.url, shortLived, 'system1_health')).status).toBe(200);
    // Wait until just past the token's own `exp` (whole seconds; the server allows no clock skew here).
    const { exp } = JSON.parse(Buffer.from(shortLived.split('.')[1], 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 1100));
    const expired = await callTool(server.url, shortLived, 'system1_health');
    expect([expired.status, expired.headers.get('www-authenticate')]).toEqual([
      401,
      expect.stringContaining('error_description="the token has expired"'),
    ]);

    const foreignToken = await foreign.token('team-agent', audience);
    const fromForeign = await callTool(server.url, foreignToken, 'system1_health');
    expect([fromForeign.status, fromForeign.headers.get('www-authenticate')]).toEqual([
      401,
      expect.stringContaining('error="invalid_token"'),
    ]);

    const good = await issuer.token('team-agent', audience);
    const inQuery = await post(
      server.url,
      undefined,
      { method: 'tools/call', params: { name: 'system1_health', arguments: {} } },
      `?access_token=${good}`,
    );
    expect([inQuery.status, inQuery.body.error?.message]).toEqual([
      400,
      'an access token is taken only in the Authorization header, never in the URL',
    ]);
    for (const token of [shortLived, foreignToken, good]) expect(server.stderr()).not.toContain(token.split('.')[2]);
  });

  it('answers a missing scope with 403 insufficient_scope naming it, and still takes the static token beside OAuth', async () => {
    const reader = await issuer.token('reader', audience, 'system1:read');
    expect((await callTool(server.url, reader, 'system1_health')).status).toBe(200);
    const refused = await callTool(server.url, reader, 'system1_decide', QUESTION);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([
      403,
      expect.stringContaining(
        'error="insufficient_scope", error_description="system1_decide needs the scope system1:decide", scope="system1:decide"',
      ),
    ]);
    const byStaticToken = await callTool(server.url, TOKENS.SYSTEM1_HTTP_TOKEN, 'system1_decide', QUESTION);
    expect(byStaticToken.body.result?.structuredContent?.status).toBe('decided');
  });

  it('takes a token signed by a key the issuer rotated in after one JWKS refresh, and invented key ids cannot make it fetch the JWKS again and again', async () => {
    const before = await issuer.jwksFetches();
    expect(before).toBe(1);
    await issuer.rotate();
    const rotated = await issuer.token('team-agent', audience);
    await eventuallyRead(
      async () => (await callTool(server.url, rotated, 'system1_health')).status,
      (status) => status === 200,
      'the rotated key is taken',
      10_000,
    );
    expect(await issuer.jwksFetches()).toBe(2);

    const [header, payload, signature] = rotated.split('.');
    const invented = (kid: string) =>
      [
        Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), kid })).toString(
          'base64url',
        ),
        payload,
        signature,
      ].join('.');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => callTool(server.url, invented(`made-up-${i}`), 'system1_health')),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(401));
    expect(await issuer.jwksFetches()).toBeLessThanOrEqual(3);
  });
});
