/**
 * serve-http with real clients, when they are installed (they are not dependencies: `node bench/clients.js`
 * installs them from the npm registry into a temp prefix, SYSTEM1_HTTP_CLIENTS_PREFIX to choose it): Claude
 * Code and MCP Inspector through test/plugin/check-http.sh, and the official conformance suite, whose
 * scenarios must each pass or not apply to a server with tools only and no sessions (bench/client-tools.js
 * says which, and why). Without them these tests skip, and say so.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { conformance, locate } from '../../bench/client-tools';
import { requireBuild, ROOT, Sandbox } from './helpers/gateway';
import { HttpServerProcess } from './helpers/http-server-process';
import { eventually, RawConnection } from '../helpers/router-harness';

const tools = locate();
if (!tools.claude) console.warn(`SKIPPED: Claude Code's CLI is not in ${tools.prefix}: run \`node bench/clients.js\` once to install the real clients`);
if (!tools.conformance) console.warn(`SKIPPED: the MCP conformance suite (and Node 22) are not in ${tools.prefix}: run \`node bench/clients.js\` once to install them`);

beforeAll(() => requireBuild());

(tools.claude ? describe : describe.skip)('serve-http with Claude Code and MCP Inspector (test/plugin/check-http.sh)', () => {
  it('Claude Code connects with the token and not without it; the inspector lists and calls the tools', async () => {
    const script = path.join(ROOT, 'test', 'plugin', 'check-http.sh');
    const result = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile('sh', [script, tools.claude!, ...(tools.inspector ? [tools.inspector] : [])], { encoding: 'utf8' }, (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout })),
    );
    const failed = result.stdout.split('\n').filter((line) => line.startsWith('FAIL: '));
    // "! Connected · tools fetch failed" is a failure too: Claude Code then has no tools from the server.
    expect({ failed, list: result.stdout.split('\n').filter((line) => line.startsWith('system1')) }).toEqual({ failed: [], list: expect.arrayContaining([expect.stringMatching(/ - ✔ Connected$/)]) });
    expect(result.stdout).toMatch(/^system1: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/m);
    expect(result.stdout).toContain('ok: claude mcp list does not connect with a wrong token');
    if (tools.inspector) {
      expect(result.stdout).toContain('ok: inspector tools/call system1_decide is decided');
      expect(result.stdout).toContain('ok: inspector tools/call system1_ask answers the question');
    }
    expect(result.code).toBe(0);
  }, 120_000);
});

/** One serve-http on the mock for a describe block: started by the returned function, stopped after the block. */
function mockServerForSuite(): () => Promise<HttpServerProcess> {
  const sandbox = new Sandbox();
  let server: HttpServerProcess | undefined;
  afterAll(async () => {
    server?.kill();
    await server?.exited;
    sandbox.dispose();
  });
  return async () => (server = await HttpServerProcess.start(sandbox, { SYSTEM1_PROVIDER: 'mock' }));
}

(tools.conformance ? describe : describe.skip)('serve-http against the MCP conformance suite', () => {
  const startServer = mockServerForSuite();

  it('passes every server scenario that applies to a tools-only stateless server, DNS rebinding included', async () => {
    const server = await startServer();
    const result = await conformance(tools, server.url);
    const outcomes = Object.fromEntries(Object.entries(result.scenarios).map(([name, scenario]) => [name, scenario.outcome]));
    const failed = Object.entries(result.scenarios).filter(([, scenario]) => scenario.outcome === 'fail');
    expect(failed).toEqual([]);
    expect(outcomes).toMatchObject({ 'server-initialize': 'pass', ping: 'pass', 'tools-list': 'pass', 'dns-rebinding-protection': 'pass' });
    // The rest do not apply, each for a stated reason (a fixture tool, an undeclared capability, no sessions).
    for (const scenario of Object.values(result.scenarios).filter((s) => s.outcome === 'not_applicable')) {
      expect(scenario.reason).toMatch(/fixture tool|does not declare the (logging|completions|resources|prompts) capability|stateless server/);
    }
  }, 300_000);
});

describe('serve-http as Claude Code uses the connection', () => {
  const startServer = mockServerForSuite();

  /**
   * After `initialized`, MCP clients open the optional GET stream; the stateless server refuses it with 405,
   * as it should, and must keep the connection: a request the client already sent behind it on that
   * connection would otherwise be lost (Claude Code 2.1.197 then showed "! Connected · tools fetch failed"
   * in `claude mcp list` in 6 of 25 runs). Pipelined here, the old close lost it every time.
   */
  it('answers a request sent behind the refused GET stream on the same connection', async () => {
    const server = await startServer();
    const connection = new RawConnection(server.port);
    await connection.ready();
    const host = `127.0.0.1:${server.port}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    connection.write(`GET /mcp HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n\r\n`);
    connection.write(`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const statuses = await eventually(
      // Not anchored to a line start: the second status line follows the first answer's body directly.
      () => connection.received.match(/HTTP\/1\.1 \d{3}/g) ?? [],
      (seen) => seen.length >= 2 || connection.isClosed,
    );
    connection.destroy();
    expect(statuses).toEqual(['HTTP/1.1 405', 'HTTP/1.1 200']);
    expect(connection.received).toContain('system1_decide');
  });
});
