/**
 * The HTTP gateway's routing and refusals on a real socket (127.0.0.1:0), with the MCP binding, readiness and
 * metrics faked: what a load balancer's probe, a stray client and a broken check each get.
 */
import { connect } from 'node:net';
import { HttpGateway } from '../../../src/http-server/http-gateway';
import { listen, Listening } from '../../../src/http-server/http-listener';
import type { Readiness } from '../../../src/http-server/readiness';
import { send } from '../../helpers/router-harness';

const LIMITS = { maxBodyBytes: 1024, maxInFlight: 4, maxConnections: 16, headersTimeoutMs: 2000, requestTimeoutMs: 4000, bodyIdleTimeoutMs: 5_000, keepAliveTimeoutMs: 1000 };

let listening: Listening | undefined;
let logs: string[];
afterEach(async () => {
  await listening?.drain(0);
  listening = undefined;
});

async function start(readiness: () => Promise<Readiness>): Promise<number> {
  logs = [];
  const gateway = new HttpGateway({
    mcp: () => Promise.reject(new Error('no MCP binding in this test')),
    readiness: { check: readiness },
    metrics: { httpRequestDone: () => undefined, text: async () => '', contentType: 'text/plain' },
    limits: LIMITS,
    log: (line) => logs.push(line),
    warn: (line) => logs.push(line),
    now: () => 0,
  });
  listening = await listen(gateway, { host: '127.0.0.1', port: 0, allowedHosts: [], allowedOrigins: [], limits: LIMITS }, (line) => logs.push(line));
  return listening.port;
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
    expect(JSON.parse(answer.text)).toEqual({ ready: false, reason: 'check_failed', detail: 'the readiness check failed; see the server log' });
    expect(answer.text).not.toContain('10.1.2.3');
  });

  it('answers an unexpected failure with a bare 500, the stack going to the log only', async () => {
    const port = await start(async () => ({ ready: true, paused: false }));
    const answer = await send(port, { path: '/mcp', headers: { accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error; see the server log' } });
    expect(answer.text).not.toContain('no MCP binding');
    expect(logs.join('\n')).toContain('no MCP binding in this test');
  });
});
