/**
 * Both MCP eras on both transports, as the SDK's 2.x client connects: pinned to 2026-07-28, `auto` (which
 * must negotiate 2026-07-28, not fall back) and legacy (the 2025 handshake); the 1.x client still connects.
 * Then the wire of the modern era itself: server/discover, the per-request envelope, the refusals with the
 * codes 2026-07-28 fixes (each under the request's id), cache hints on tools/list, and the HTTP header checks.
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransport1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { type Json, MAIN, readJson, requireBuild, Resources } from './helpers/gateway';
import { HttpServerProcess, stopAll, structured } from './helpers/http-server-process';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const TOOLS = ['system1_decide', 'system1_health', 'system1_capabilities', 'system1_ask'];
const MODES = [
  { name: 'pinned to 2026-07-28', mode: { pin: MODERN }, era: 'modern', version: MODERN },
  { name: 'auto', mode: 'auto', era: 'modern', version: MODERN },
  { name: 'legacy', mode: 'legacy', era: 'legacy', version: '2025-11-25' },
] as const;

const resources = Resources.perFile();
let server: HttpServerProcess;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  requireBuild();
  server = await HttpServerProcess.start(resources.sandbox(), { SYSTEM1_PROVIDER: 'mock' });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await stopAll([server], []);
});

function client2(mode: (typeof MODES)[number]['mode']): Client {
  const client = new Client({ name: 'system1-e2e-2x', version: '0.0.0' }, { versionNegotiation: { mode } });
  clients.push(client);
  return client;
}

const stdioTransport = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: resources.sandbox().env({ SYSTEM1_PROVIDER: 'mock' }),
    stderr: 'ignore',
  });

/** The four tools with the committed schemas, and a decision on the mock in the S1 envelope. */
async function expectServed(client: {
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown }[] }>;
  callTool(params: { name: string; arguments: Json }): Promise<unknown>;
}) {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
  expect(tools[0].inputSchema).toStrictEqual(readJson('schema/request.json'));
  const decision = structured(
    await client.callTool({
      name: 'system1_decide',
      arguments: { question: 'Rerun or block?', options: ['rerun', 'block'], request_id: 'eras-1' },
    }),
  );
  expect(decision).toMatchObject({
    schema_version: '1',
    request_id: 'eras-1',
    status: 'decided',
    decision: 'rerun',
    provider: 'mock',
    calibrated: false,
  });
}

describe.each(MODES)('the 2.x client, $name', ({ mode, era, version }) => {
  it('over stdio: negotiates the era it asked for, lists the four tools and decides on the mock', async () => {
    const client = client2(mode);
    await client.connect(stdioTransport());
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual([era, version]);
    await expectServed(client);
  });

  it('over HTTP: negotiates the era it asked for, lists the four tools and decides on the mock', async () => {
    const client = client2(mode);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual([era, version]);
    await expectServed(client);
  });
});

it('the 1.x client still connects over stdio and over HTTP', async () => {
  const overStdio = new Client1({ name: 'system1-e2e-1x', version: '0.0.0' });
  clients.push(overStdio);
  await overStdio.connect(
    new StdioClientTransport1({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: resources.sandbox().env({ SYSTEM1_PROVIDER: 'mock' }),
      stderr: 'ignore',
    }),
  );
  await expectServed(overStdio as never);
  const overHttp = await server.client();
  clients.push(overHttp);
  await expectServed(overHttp as never);
});

it('system1_capabilities and system1_health name the MCP revisions served, newest first', async () => {
  const client = client2('auto');
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const served = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
  expect(
    structured(await client.callTool({ name: 'system1_capabilities', arguments: {} })).mcp_protocol_versions,
  ).toEqual(served);
  expect(structured(await client.callTool({ name: 'system1_health', arguments: {} })).mcp_protocol_versions).toEqual(
    served,
  );
});

/**
 * Raw lines to `mcp` over stdio; resolves with every answer once each request has one and stdin is closed
 * (and with what the server logged, when `log` is given).
 */
async function stdioExchange(messages: object[], log?: string[]): Promise<Json[]> {
  const child = spawn(process.execPath, [MAIN, 'mcp'], {
    env: resources.sandbox().env({ SYSTEM1_PROVIDER: 'mock' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  for (const message of messages) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  child.stdin.end();
  await new Promise((resolve) => child.once('close', resolve));
  log?.push(...err.split('\n').filter((line) => line !== ''));
  return out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
}

const byId = (answers: Json[]) => Object.fromEntries(answers.map((answer) => [answer.id, answer]));

describe('the 2026-07-28 wire over stdio', () => {
  let answers: Record<string, Json>;
  beforeAll(async () => {
    answers = byId(
      await stdioExchange([
        { id: 'discover', method: 'server/discover', params: { _meta: ENVELOPE } },
        { id: 'list', method: 'tools/list', params: { _meta: ENVELOPE } },
        { id: 'no-envelope', method: 'tools/list' },
        {
          id: 'future',
          method: 'tools/list',
          params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
        },
        {
          id: 'odd',
          method: 'tools/call',
          params: {
            name: 'system1_decide',
            arguments: JSON.parse('{"question":"q?","options":["a","b"],"constructor":null}'),
            _meta: ENVELOPE,
          },
        },
        { id: 'text', method: 'tools/call', params: { name: 'system1_decide', arguments: 'text', _meta: ENVELOPE } },
        {
          id: 'decide',
          method: 'tools/call',
          params: { name: 'system1_decide', arguments: { question: 'q?', options: ['a', 'b'] }, _meta: ENVELOPE },
        },
      ]),
    );
  });

  it('answers server/discover with the modern revision and only the tools capability', () => {
    expect(answers.discover.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      resultType: 'complete',
    });
    expect(Object.keys(answers.discover.result.capabilities)).toEqual(['tools']);
  });

  it('lists the tools in their fixed order with resultType and cache hints', () => {
    expect(answers.list.result).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'public',
    });
    expect(answers.list.result.ttlMs).toBeGreaterThan(0);
    expect(answers.list.result.tools.map((tool: Json) => tool.name)).toEqual(TOOLS);
  });

  it('refuses a request without the envelope (-32602) and one claiming another revision (-32022 with the supported list), each under its id', () => {
    expect(answers['no-envelope'].error).toMatchObject({ code: -32602, message: expect.stringContaining('_meta') });
    expect(answers.future.error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN], requested: '2099-01-01' },
    });
  });

  it('answers bad arguments in the gateway envelope, never a zod dump, and decides a good call', () => {
    for (const id of ['odd', 'text']) {
      expect(answers[id].result).toMatchObject({
        isError: true,
        resultType: 'complete',
        structuredContent: { status: 'error', error: { code: 'invalid_request' } },
      });
      expect(JSON.stringify(answers[id])).not.toMatch(/invalid_type|"expected"/);
    }
    expect(answers.odd.result.structuredContent.error.message).toContain('constructor');
    expect(answers.decide.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { status: 'decided', decision: 'a' },
    });
  });
});

// A client (or whatever poses as one) may send a method or a revision of any length up to the line limit.
it('over stdio, answers a revision claim that is not text as an invalid envelope, and logs one short line per refusal, however long the words a client sends', async () => {
  const claim = (revision: unknown) => ({
    _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': revision },
  });
  const log: string[] = [];
  const answers = byId(
    await stdioExchange(
      [
        // A modern request pins the connection to 2026-07-28: the old handshake below is refused, not served.
        { id: 'pin', method: 'tools/list', params: { _meta: ENVELOPE } },
        { id: 'number', method: 'tools/list', params: claim(20260728) },
        { id: 'null', method: 'tools/list', params: claim(null) },
        { id: 'long-method', method: 'm'.repeat(600_000), params: claim('2099-01-01') },
        { id: 'long-revision', method: 'tools/list', params: claim('v'.repeat(600_000)) },
        { method: 'notifications/cancelled', params: { requestId: 'x', ...claim('w'.repeat(600_000)) } },
        {
          id: 'old-handshake',
          method: 'initialize',
          params: { protocolVersion: 'p'.repeat(600_000), capabilities: {}, clientInfo: { name: 'x', version: '0' } },
        },
        { id: 'still-serving', method: 'tools/list', params: { _meta: ENVELOPE } },
      ],
      log,
    ),
  );
  for (const id of ['number', 'null'])
    expect(answers[id].error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion: expected a string'),
    });
  for (const id of ['long-method', 'long-revision', 'old-handshake']) expect(answers[id].error.code).toBe(-32022);
  expect(JSON.stringify(answers['long-revision']).length).toBeLessThan(1000);
  expect(answers['still-serving'].result.tools.map((tool: Json) => tool.name)).toEqual(TOOLS);
  expect(log.filter((line) => /WARN/.test(line))).toHaveLength(6);
  for (const line of log) expect(line.length).toBeLessThan(1000);
});

describe('the 2026-07-28 wire over HTTP', () => {
  const post = async (body: Json, headers: Record<string, string>) => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const call = {
    id: 7,
    method: 'tools/call',
    params: { name: 'system1_decide', arguments: { question: 'q?', options: ['a', 'b'] }, _meta: ENVELOPE },
  };

  it('decides when Mcp-Method and Mcp-Name match the body, surrounding whitespace ignored', async () => {
    const answer = await post(call, { 'mcp-method': ' tools/call ', 'mcp-name': '\tsystem1_decide ' });
    expect(answer.body).toMatchObject({
      id: 7,
      result: { resultType: 'complete', structuredContent: { status: 'decided' } },
    });
  });

  it('refuses a header that does not match the body with -32020, under the request id', async () => {
    expect((await post(call, { 'mcp-method': 'tools/list', 'mcp-name': 'system1_decide' })).body).toMatchObject({
      id: 7,
      error: { code: -32020 },
    });
    expect((await post(call, { 'mcp-method': 'tools/call', 'mcp-name': 'system1_health' })).body).toMatchObject({
      id: 7,
      error: { code: -32020 },
    });
  });

  it('refuses a claimed revision it does not serve with -32022 and the supported list', async () => {
    const future = {
      ...call,
      params: { ...call.params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    };
    const answer = await post(future, {
      'mcp-protocol-version': '2099-01-01',
      'mcp-method': 'tools/call',
      'mcp-name': 'system1_decide',
    });
    expect(answer.body).toMatchObject({ id: 7, error: { code: -32022, data: { supported: [MODERN] } } });
  });

  it('answers bad arguments in the gateway envelope, as over stdio', async () => {
    const odd = { ...call, params: { ...call.params, arguments: 'text' } };
    const answer = await post(odd, { 'mcp-method': 'tools/call', 'mcp-name': 'system1_decide' });
    expect(answer.body).toMatchObject({
      id: 7,
      result: { isError: true, structuredContent: { status: 'error', error: { code: 'invalid_request' } } },
    });
  });
});
