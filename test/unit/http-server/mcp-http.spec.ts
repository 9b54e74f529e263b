/**
 * The MCP binding of serve-http (mcp-http.ts) on a socket of its own (127.0.0.1:0), over the gateway's real
 * tools and a fake engine: a 2026-07-28 request whose Mcp-Method or Mcp-Name header says one thing while its
 * body does another (what a proxy routing or authorising by header would be fooled by) is refused, and the
 * tool it carries never runs. protocol-eras.spec holds the same through the built server.
 */
import type { TestingModule } from '@nestjs/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP_REQUEST_ID_HEADER } from '../../../src/http-server/http-gateway';
import { mcpHttpHandler } from '../../../src/http-server/mcp-http';
import { McpServerService } from '../../../src/mcp/mcp-server.service';
import { LayaFake } from '../../fakes/laya.fake';
import { SYSTEMONE_ROUTE } from '../../fakes/systemone-answer';
import { gatewayApp } from '../../helpers/gateway-app';

const MODERN = '2026-07-28';
const CALL = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'system1_decide',
    arguments: { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};

let engine: LayaFake;
let app: TestingModule;
let server: Server;
let url: string;
const protocolErrors: string[] = [];

beforeAll(async () => {
  engine = new LayaFake();
  await engine.start();
  app = await gatewayApp({
    toml: `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${engine.url.origin}"\n`,
  });
  const mcp = app.get(McpServerService);
  const handler = mcpHttpHandler(
    (requestId) => mcp.createServer(requestId),
    HTTP_REQUEST_ID_HEADER,
    (error) => protocolErrors.push(error.message),
  );
  // The gateway reads and parses the body before the binding sees it (http-gateway.ts): so does this server.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void handler(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app.close();
  await engine.stop();
});

async function post(headers: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      ...headers,
    },
    body: JSON.stringify(CALL),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const engineAsked = () => engine.requestsTo(SYSTEMONE_ROUTE).length;

describe('a 2026-07-28 tools/call over HTTP', () => {
  it.each([
    ['Mcp-Name names a tool that decides nothing', { 'mcp-method': 'tools/call', 'mcp-name': 'system1_health' }],
    ['Mcp-Method names a listing', { 'mcp-method': 'tools/list', 'mcp-name': 'system1_decide' }],
  ])('whose %s, while the body decides, is refused with 400 and -32020, and no engine is asked', async (_, headers) => {
    const before = engineAsked();
    const answer = await post(headers);
    expect([answer.status, answer.body.id, answer.body.error?.code, answer.body.result]).toEqual([
      400,
      7,
      -32020,
      undefined,
    ]);
    expect(engineAsked()).toBe(before);
  });

  it('whose headers match its body decides, asking the engine once', async () => {
    const before = engineAsked();
    const answer = await post({ 'mcp-method': 'tools/call', 'mcp-name': 'system1_decide' });
    expect([answer.status, answer.body.result?.structuredContent?.status]).toEqual([200, 'decided']);
    expect(engineAsked()).toBe(before + 1);
  });
});
