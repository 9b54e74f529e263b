/**
 * `system1 serve-http` against what a real attacker tries, over raw HTTP to the built binary: every way of
 * getting past the token, /metrics without it, Content-Length that lies, and many clients past the in-flight
 * cap at once. Each case ends with the server still serving an honest client.
 */
import { Resources, requireBuild } from './helpers/gateway';
import { HttpServerProcess, stopAll } from './helpers/http-server-process';
import { RawConnection, send } from '../helpers/router-harness';
import { eventually, eventuallyRead, SETTLE_LIMIT_MS } from '../helpers/eventually';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

const TOKEN = 'e2e-attacks-token-4be19f7c03';
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const AUTH = `Bearer ${TOKEN}`;
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'system1_decide', arguments: { question: 'Rerun the job?', options: ['rerun', 'block'] } },
});

const resources = Resources.perTest();
let servers: HttpServerProcess[] = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  await stopAll(servers, []);
  servers = [];
});

async function serve(env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const server = await HttpServerProcess.start(resources.sandbox(), {
    SYSTEM1_PROVIDER: 'mock',
    SYSTEM1_HTTP_TOKEN: TOKEN,
    ...env,
  });
  servers.push(server);
  return server;
}

/** One raw exchange: `text` written at once; what the server sent, once it closed the connection. */
async function raw(server: HttpServerProcess, text: string): Promise<string> {
  const connection = new RawConnection(server.port);
  await connection.ready();
  connection.write(text);
  const closed = await connection.closedWithin(SETTLE_LIMIT_MS);
  connection.destroy();
  if (!closed)
    throw new Error(
      `the server kept the connection open past ${SETTLE_LIMIT_MS} ms; it had sent: ${connection.received.slice(0, 200)}`,
    );
  return connection.received;
}

/** Whether `received` holds one whole answer: its head, and as much body as its Content-Length says. */
function answerComplete(received: string): boolean {
  const end = received.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: (\d+)\r\n/i.exec(received.slice(0, end));
  return end >= 0 && length !== null && received.length - end - 4 >= Number(length[1]);
}

/** A POST /mcp with these extra header lines, the honest body and `Connection: close`. */
const mcpRequest = (server: HttpServerProcess, headerLines: string[], body = BODY) =>
  [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${server.port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...headerLines,
    '',
    body,
  ].join('\r\n');

/** The status codes of every answer in a stream of raw HTTP answers, in order. */
const statuses = (received: string) =>
  [...received.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((match) => Number(match[1]));

/**
 * An honest client with the token is still answered: the attack neither crashed nor wedged the server.
 * `requestId` names its decision in the access log.
 */
async function stillServes(server: HttpServerProcess, requestId?: string): Promise<void> {
  const answer = await send(server.port, {
    path: '/mcp',
    headers: { ...MCP_HEADERS, authorization: AUTH, ...(requestId && { 'x-request-id': requestId }) },
    body: BODY,
  });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.text).result.structuredContent).toMatchObject({ status: 'decided', decision: 'rerun' });
  expect(server.child.exitCode).toBeNull();
}

const MARKER = 'decision-after-the-attack';

/**
 * The server's log once a decision sent now (MARKER) is answered and logged, without that decision's lines.
 * Lines are written in order, each request's after its answer: whatever the attack made the server log is there.
 */
async function logBefore(server: HttpServerProcess): Promise<string> {
  await stillServes(server, MARKER);
  const log = await server.waitForStderr(new RegExp(`${MARKER} POST /mcp tools/call system1_decide -> 200`));
  return log
    .split('\n')
    .filter((line) => !line.includes(MARKER))
    .join('\n');
}

/** The server's in-flight gauge, read with the token. */
async function inFlight(server: HttpServerProcess): Promise<number | undefined> {
  const answer = await send(server.port, { method: 'GET', path: '/metrics', headers: { authorization: AUTH } });
  return sampleValue(parsePrometheusText(answer.text), 'system1_http_requests_in_flight');
}

describe('the token check', () => {
  it.each<[string, string[]]>([
    ['no Authorization header', []],
    ['a wrong token', ['Authorization: Bearer e2e-attacks-token-0000000000']],
    ['an empty Bearer', ['Authorization: Bearer ']],
    ['the scheme alone', ['Authorization: Bearer']],
    ['the token without a scheme', [`Authorization: ${TOKEN}`]],
    ['the token under Basic', [`Authorization: Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`]],
    ['the token under another scheme', [`Authorization: Token ${TOKEN}`]],
    ['the token with a suffix', [`Authorization: Bearer ${TOKEN}x`]],
    ['the token with a prefix', [`Authorization: Bearer x${TOKEN}`]],
    ['the token cut short by one character', [`Authorization: Bearer ${TOKEN.slice(0, -1)}`]],
    ['the token followed by another word', [`Authorization: Bearer ${TOKEN} extra`]],
    ['the token twice in one header', [`Authorization: Bearer ${TOKEN}, Bearer ${TOKEN}`]],
    ['lowercase bearer with a wrong token', ['Authorization: bearer e2e-attacks-token-0000000000']],
    ['two Authorization headers, the wrong one first', ['Authorization: Bearer wrong', `Authorization: ${AUTH}`]],
    ['two Authorization headers, the right one first', [`Authorization: ${AUTH}`, 'Authorization: Bearer wrong']],
    ['the token in another header', [`X-Authorization: ${AUTH}`, `Proxy-Authorization: ${AUTH}`]],
  ])('refuses %s with 401, runs no decision and never echoes the token', async (_case, headerLines) => {
    const server = await serve();
    const answer = await raw(server, mcpRequest(server, headerLines));
    expect(statuses(answer)).toEqual([401]);
    expect(answer).toMatch(/\r\nwww-authenticate: Bearer realm="system1"/i);
    expect(answer).toContain('Authorization: Bearer <token>');
    expect(answer.split('\r\n\r\n')[1]).not.toContain(TOKEN);
    const log = await logBefore(server);
    expect(log).not.toMatch(/system1_decide -> 200|decided by/);
    expect(log).not.toContain(TOKEN);
  });

  it.each<[string, string]>([
    ['Bearer', `Bearer ${TOKEN}`],
    // RFC 7235: the scheme is case-insensitive; the token is not (see the refusals above).
    ['lowercase bearer', `bearer ${TOKEN}`],
    ['BEARER with spaces around the token', `BEARER   ${TOKEN}  `],
  ])('serves the right token under %s', async (_case, authorization) => {
    const server = await serve();
    const answer = await raw(server, mcpRequest(server, [`Authorization: ${authorization}`]));
    expect(statuses(answer)).toEqual([200]);
    expect(answer).toContain('"decision":"rerun"');
  });
});

describe('/metrics behind the token', () => {
  it.each<[string, string, Record<string, string>]>([
    ['without a token', '/metrics', {}],
    ['with a wrong token', '/metrics', { authorization: 'Bearer wrong' }],
    [
      'with the token under another scheme',
      '/metrics',
      { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
    ],
    ['with a query string', '/metrics?format=prometheus', {}],
    ['with a token in the query string', `/metrics?token=${TOKEN}`, {}],
    ['under a trailing slash', '/metrics/', {}],
    ['under another case', '/METRICS', {}],
    ['through a dot segment', '/mcp/../metrics', {}],
  ])('shows no figures %s', async (_case, path, headers) => {
    const server = await serve();
    const answer = await send(server.port, { method: 'GET', path, headers });
    expect([401, 404]).toContain(answer.status);
    expect(answer.text).not.toMatch(/system1_|# HELP|# TYPE/);
    const right = await send(server.port, { method: 'GET', path: '/metrics', headers: { authorization: AUTH } });
    expect(right.status).toBe(200);
    expect(right.text).toContain('system1_http_requests_in_flight');
  });
});

describe('Content-Length that lies', () => {
  it('declared small, sent big: reads only what was declared, and the rest (a second request without the token) is refused', async () => {
    const server = await serve();
    const smuggled = mcpRequest(server, []); // a whole request of its own, without the token
    const first = mcpRequest(server, [`Authorization: ${AUTH}`]).replace('Connection: close\r\n', '');
    const answer = await raw(server, first + smuggled);
    // The server may close after the first answer, or refuse the second: never run it.
    expect([[200], [200, 401]]).toContainEqual(statuses(answer));
    expect((await logBefore(server)).match(/system1_decide -> 200/g)).toHaveLength(1);
  });

  it('declared small, sent big: a body cut at the declared length is a parse error, and the rest never runs', async () => {
    const server = await serve();
    const text = mcpRequest(server, [`Authorization: ${AUTH}`]).replace(
      `Content-Length: ${Buffer.byteLength(BODY)}`,
      'Content-Length: 20',
    );
    const answer = await raw(server, text + 'x'.repeat(1024 * 1024));
    // The cut body is no JSON-RPC message, and the rest is no HTTP request: 400 whichever the server meets first.
    expect(statuses(answer)[0]).toBe(400);
    expect(statuses(answer)).not.toContain(200);
    expect(await logBefore(server)).not.toMatch(/tools\/call/);
  });

  it('declared over the cap, sent none, on several connections at once: each is answered 413 at once, with connection: close', async () => {
    const server = await serve({ SYSTEM1_HTTP_MAX_BODY_BYTES: '65536' });
    const head = [
      `POST /mcp HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      'Content-Type: application/json',
      `Authorization: ${AUTH}`,
      `Content-Length: ${64 * 1024 * 1024}`,
      '',
      '',
    ].join('\r\n');
    // The client holds its end open (it "is still sending"): the whole answer must come before any body does.
    const connections = Array.from({ length: 5 }, () => new RawConnection(server.port));
    await Promise.all(connections.map((connection) => connection.ready()));
    for (const connection of connections) connection.write(head);
    await eventually(
      () => connections.every((connection) => answerComplete(connection.received)),
      'a whole answer on every connection',
    );
    const answers = connections.map((connection) => connection.received);
    connections.forEach((connection) => connection.destroy());
    for (const answer of answers) {
      expect(statuses(answer)).toEqual([413]);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain("over this server's limit of 65536 bytes");
    }
    await stillServes(server);
  });

  it('declared under the cap, sent none: other clients are served meanwhile, and the request timeout ends it', async () => {
    const server = await serve({ SYSTEM1_HTTP_HEADERS_TIMEOUT_S: '1', SYSTEM1_HTTP_REQUEST_TIMEOUT_S: '2' });
    const stalled = new RawConnection(server.port);
    await stalled.ready();
    stalled.write(
      [
        `POST /mcp HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        'Content-Type: application/json',
        `Authorization: ${AUTH}`,
        'Content-Length: 1000',
        '',
        '{"jsonrpc"',
      ].join('\r\n'),
    );
    await stillServes(server);
    expect(await stalled.closedWithin(SETTLE_LIMIT_MS)).toBe(true);
    expect(stalled.received).not.toMatch(/^HTTP\/1\.1 200 /);
  });

  it.each<[string, string[]]>([
    ['negative', ['Content-Length: -1']],
    ['not a number', ['Content-Length: abc']],
    ['in exponent form', ['Content-Length: 1e2']],
    ['hexadecimal', ['Content-Length: 0x40']],
    ['two that disagree', ['Content-Length: 10', 'Content-Length: 20']],
    ['beside Transfer-Encoding: chunked', ['Content-Length: 10', 'Transfer-Encoding: chunked']],
  ])('a Content-Length %s is refused with 400 before any tool runs', async (_case, lengthLines) => {
    const server = await serve();
    const head = [
      `POST /mcp HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Authorization: ${AUTH}`,
      ...lengthLines,
      '',
      '',
    ].join('\r\n');
    const answer = await raw(server, head + BODY);
    expect(statuses(answer)).toEqual([400]);
    expect(await logBefore(server)).not.toMatch(/tools\/call/);
  });
});

describe('the in-flight cap under several clients at once', () => {
  it('answers what it holds, refuses each client past the cap with 503 and Retry-After, and takes new work once free', async () => {
    const server = await serve({ SYSTEM1_HTTP_MAX_IN_FLIGHT: '2', SYSTEM1_MOCK_DELAY_S: '3' });
    const post = () =>
      send(server.port, { path: '/mcp', headers: { ...MCP_HEADERS, authorization: AUTH }, body: BODY });
    const held = [post(), post()];
    await eventuallyRead(
      () => inFlight(server),
      (count) => count === 2,
      'two decisions in flight',
    );
    const refused = await Promise.all(Array.from({ length: 6 }, post));
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(JSON.parse(answer.text).error.message).toContain('max_in_flight');
    }
    // The refusals took no slot: the two held decisions are still all there is.
    expect(await inFlight(server)).toBe(2);
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(200);
    await eventuallyRead(
      () => inFlight(server),
      (count) => count === 0,
      'every slot free once answered',
    );
    expect((await post()).status).toBe(200);
    expect(server.stderr().match(/POST \/mcp tools\/call system1_decide -> 503/g)).toHaveLength(6);
  });
});
