/**
 * The HTTP gateway's routing and refusals on a real socket (127.0.0.1:0), with the MCP binding, readiness and
 * metrics faked: what a load balancer's probe, a stray client and a broken check each get.
 */
import { connect } from 'node:net';
import { loadConfig } from '../../../src/config/config.loader';
import { CallerAccess } from '../../../src/http-server/callers/caller-access';
import { CallerPolicies } from '../../../src/http-server/callers/caller-policy';
import { CallerTokens } from '../../../src/http-server/callers/caller-tokens';
import { RateLimiter } from '../../../src/http-server/callers/rate-limiter';
import { HttpGateway } from '../../../src/http-server/http-gateway';
import { listen, type Listening } from '../../../src/http-server/http-listener';
import type { Readiness } from '../../../src/http-server/readiness';
import { send } from '../../helpers/router-harness';
import { eventually } from '../../helpers/eventually';

/** The access rules of a server with these token variables, this config and the rate limiter's clock. */
function accessWith(env: Record<string, string>, toml = '', now: () => number = () => 0): CallerAccess {
  const config = loadConfig({ env: { HOME: '/test/home', SYSTEM1_CONFIG: '/test/config.toml' }, readFile: () => toml });
  return new CallerAccess(
    CallerTokens.fromEnv(env).tokens,
    new CallerPolicies(config.http, config.httpCallers),
    new RateLimiter(now),
  );
}

const LIMITS = {
  maxBodyBytes: 1024,
  maxInFlight: 4,
  maxConnections: 16,
  headersTimeoutMs: 2000,
  requestTimeoutMs: 4000,
  bodyIdleTimeoutMs: 5_000,
  keepAliveTimeoutMs: 1000,
};

let listening: Listening | undefined;
let gateway: HttpGateway;
let logs: string[];
afterEach(async () => {
  await listening?.drain(0);
  listening = undefined;
});

/** The MCP handler of these tests: none, unless a test gives one. */
const noMcp = () => Promise.reject(new Error('no MCP binding in this test'));

async function start(
  readiness: () => Promise<Readiness>,
  token?: string,
  mcp: ConstructorParameters<typeof HttpGateway>[0]['mcp'] = noMcp,
  access = accessWith(token === undefined ? {} : { SYSTEM1_HTTP_TOKEN: token }),
): Promise<number> {
  logs = [];
  gateway = new HttpGateway({
    access,
    mcp,
    readiness: { check: readiness },
    metrics: {
      httpRequestDone: () => undefined,
      text: async () => 'system1_http_requests_in_flight 0\n',
      contentType: 'text/plain',
    },
    limits: LIMITS,
    log: (line) => logs.push(line),
    warn: (line) => logs.push(line),
    now: () => 0,
  });
  listening = await listen(
    gateway,
    { host: '127.0.0.1', port: 0, allowedHosts: [], allowedOrigins: [], limits: LIMITS },
    (line) => logs.push(line),
  );
  return listening.port;
}

/** Writes `text` on a new connection; what came back once the server closed it or sent a whole answer head. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (/\r\n\r\n[^]*\}$/.test(received)) socket.destroy();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

/** An HTTP/1.0 request without a Host header, as some load balancers' probes send. */
function http10(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('the HTTP gateway', () => {
  it('lets a probe without a Host header reach /healthz and /readyz, and nothing else', async () => {
    const port = await start(async () => ({ ready: true, paused: false }));
    expect(await http10(port, '/healthz')).toMatch(/^HTTP\/1\.1 200 [^]*\{"status":"alive"\}$/);
    expect(await http10(port, '/readyz')).toMatch(/^HTTP\/1\.1 200 [^]*\{"ready":true,"paused":false\}$/);
    expect(await http10(port, '/metrics')).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('answers GET /mcp with 405 and Allow (stateless: no stream to open), and other paths with 404', async () => {
    const port = await start(async () => ({ ready: true, paused: false }));
    const get = await send(port, { method: 'GET', path: '/mcp' });
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
    expect((await send(port, { method: 'DELETE', path: '/mcp' })).status).toBe(405);
    expect((await send(port, { method: 'POST', path: '/readyz' })).status).toBe(405);
    const elsewhere = await send(port, { method: 'GET', path: '/v1/chat/completions?key=secret-in-query' });
    expect(elsewhere.status).toBe(404);
    expect(JSON.parse(elsewhere.text).error.message).toContain('/mcp');
    expect(logs.join('\n')).not.toContain('secret-in-query');
  });

  it('answers a readiness check that throws with 503 and no detail of the error', async () => {
    const port = await start(async () => {
      throw new Error('ECONNREFUSED 10.1.2.3:8765 with token abc');
    });
    const answer = await send(port, { method: 'GET', path: '/readyz' });
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toEqual({
      ready: false,
      reason: 'check_failed',
      detail: 'the readiness check failed; see the server log',
    });
    expect(answer.text).not.toContain('10.1.2.3');
  });

  it('answers an unexpected failure with a bare 500, the stack going to the log only', async () => {
    const port = await start(async () => ({ ready: true, paused: false }));
    const answer = await send(port, {
      path: '/mcp',
      headers: { accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'internal error; see the server log' },
    });
    expect(answer.text).not.toContain('no MCP binding');
    expect(logs.join('\n')).toContain('no MCP binding in this test');
  });

  describe('with a token', () => {
    const TOKEN = 'unit-gateway-token-61c2';
    const metricsWith = (port: number, authorizations: string[]) =>
      rawRequest(
        port,
        [
          `GET /metrics HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          ...authorizations.map((value) => `Authorization: ${value}`),
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      );

    it.each<[string, string[]]>([
      ['none', []],
      ['a wrong one', ['Bearer wrong']],
      ['the token with a suffix', [`Bearer ${TOKEN}x`]],
      ['the token under Basic', [`Basic ${TOKEN}`]],
      ['two headers, the right one first', [`Bearer ${TOKEN}`, 'Bearer wrong']],
      ['two headers, the wrong one first', ['Bearer wrong', `Bearer ${TOKEN}`]],
      ['the right one twice', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]],
    ])('refuses /metrics with %s (401)', async (_case, authorizations) => {
      const port = await start(async () => ({ ready: true, paused: false }), TOKEN);
      const answer = await metricsWith(port, authorizations);
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).not.toContain('system1_http_requests_in_flight');
    });

    it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`])('serves /metrics to %s', async (authorization) => {
      const port = await start(async () => ({ ready: true, paused: false }), TOKEN);
      const answer = await metricsWith(port, [authorization]);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('system1_http_requests_in_flight');
    });

    it.each(['access_token', 'ACCESS_TOKEN', 'Access_Token', 'access%5Ftoken', 'x=1&aCCESS_TOKEN'])(
      'refuses ?%s= in the URL with 400 even beside a valid header token, and never runs the request',
      async (name) => {
        let reached = false;
        const port = await start(
          async () => ({ ready: true, paused: false }),
          TOKEN,
          () => {
            reached = true;
            return Promise.reject(new Error('reached the MCP binding'));
          },
        );
        const answer = await send(port, {
          path: `/mcp?${name}=${TOKEN}`,
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        });
        expect(answer.status).toBe(400);
        expect(answer.text).toContain('only in the Authorization header');
        expect(reached).toBe(false);
        expect(logs.join('\n')).not.toContain(TOKEN);
      },
    );

    it('refuses /mcp without the token before anything else runs', async () => {
      const port = await start(async () => ({ ready: true, paused: false }), TOKEN);
      const answer = await send(port, {
        path: '/mcp',
        headers: { accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(answer.status).toBe(401);
      expect(logs.join('\n')).not.toContain('no MCP binding');
    });
  });

  it('lets a caller back after a quiet hour with no more than its burst: the rest of a run of decisions is held to 429', async () => {
    const token = 'unit-gateway-rate-token-0d7e';
    let now = 0;
    const access = accessWith({ SYSTEM1_HTTP_TOKEN: token }, '[http]\nrate_per_minute = 6000\nburst = 2\n', () => now);
    const port = await start(
      async () => ({ ready: true, paused: false }),
      token,
      async (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
      access,
    );
    const decide = async () =>
      (
        await send(port, {
          path: '/mcp',
          headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'system1_decide', arguments: { question: 'Rerun?', options: ['rerun', 'block'] } },
          }),
        })
      ).status;
    expect(await decide()).toBe(200);
    // An hour at 6000 a minute would earn 360,000 decisions: the bucket holds two.
    now = 3_600_000;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await decide());
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
  });

  it('answers a body declared over the cap with 413 from Content-Length, before any of it arrives', async () => {
    const port = await start(async () => ({ ready: true, paused: false }));
    const answer = await rawRequest(
      port,
      [
        `POST /mcp HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Content-Type: application/json',
        `Content-Length: ${LIMITS.maxBodyBytes + 1}`,
        '',
        '',
      ].join('\r\n'),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 [^]*connection: close/i);
    expect(answer).toContain(`limit of ${LIMITS.maxBodyBytes} bytes`);
  });

  it('refuses MCP requests past max_in_flight with 503 and Retry-After, counting only those whose body has arrived', async () => {
    // The MCP handler holds every request it gets until the test lets them go.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const port = await start(
      async () => ({ ready: true, paused: false }),
      undefined,
      async (_req, res) => {
        await released;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
    );
    // More clients than slots announce a body and send none: being read, they hold no slot.
    const trickling = Array.from({ length: LIMITS.maxInFlight + 2 }, () => connect(port, '127.0.0.1'));
    const mcpRequest = () =>
      send(port, {
        path: '/mcp',
        headers: { accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    try {
      for (const socket of trickling)
        socket.write(
          [
            `POST /mcp HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            'Content-Type: application/json',
            'Content-Length: 100',
            '',
            '{',
          ].join('\r\n'),
        );
      const held = Array.from({ length: LIMITS.maxInFlight }, mcpRequest);
      await eventually(() => gateway.inFlight === LIMITS.maxInFlight, 'every whole request in flight');
      const refused = await Promise.all(Array.from({ length: 3 }, mcpRequest));
      for (const answer of refused) expect([answer.status, answer.headers['retry-after']]).toEqual([503, '1']);
      expect(gateway.inFlight).toBe(LIMITS.maxInFlight);
      release();
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(Array(LIMITS.maxInFlight).fill(200));
    } finally {
      release();
      trickling.forEach((socket) => socket.destroy());
    }
    await eventually(() => gateway.inFlight === 0, 'every slot freed once its client left');
  });
});
