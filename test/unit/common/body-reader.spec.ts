/**
 * One request-body reader for both HTTP servers (issue 40): serve-http's gateway and the OpenAI router read
 * bodies through common/http/body-reader.ts, each with its own cap, status codes and words. Then the reader on
 * its own: what it tells a server's budget, a stall, and a client that cuts its body off.
 */
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyRefused } from '../../../src/common/http/body-refused';
import { readRequestBody, type BodyRules } from '../../../src/common/http/body-reader';
import { loadConfig } from '../../../src/config/config.loader';
import { CallerAccess } from '../../../src/http-server/callers/caller-access';
import { CallerPolicies } from '../../../src/http-server/callers/caller-policy';
import { CallerTokens } from '../../../src/http-server/callers/caller-tokens';
import { RateLimiter } from '../../../src/http-server/callers/rate-limiter';
import { HttpGateway } from '../../../src/http-server/http-gateway';
import { listen, type Listening } from '../../../src/http-server/http-listener';
import { eventually } from '../../helpers/eventually';
import { RawConnection, RouterHarness, send } from '../../helpers/router-harness';

const CAP = 4096;

describe('both servers read bodies with the one reader, each in its own words', () => {
  const harness = RouterHarness.use();
  let gatewayListening: Listening | undefined;
  let mcpBodies: Record<string, unknown>[];
  afterEach(async () => {
    await gatewayListening?.drain(0);
    gatewayListening = undefined;
  });

  /** serve-http's gateway with a body cap of CAP bytes, its MCP binding recording what it was given. */
  async function gateway(): Promise<number> {
    const config = loadConfig({ env: { HOME: '/test/home', SYSTEM1_CONFIG: '/test/c.toml' }, readFile: () => '' });
    const limits = {
      maxBodyBytes: CAP,
      maxInFlight: 4,
      maxConnections: 16,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 40_000,
      bodyIdleTimeoutMs: 20_000,
      keepAliveTimeoutMs: 1000,
    };
    mcpBodies = [];
    const server = new HttpGateway({
      access: new CallerAccess(
        CallerTokens.fromEnv({}).tokens,
        new CallerPolicies(config.http, config.httpCallers),
        new RateLimiter(() => 0),
      ),
      mcp: async (_req, res, body) => {
        mcpBodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      readiness: { check: () => Promise.reject(new Error('no readiness in this test')) },
      metrics: { httpRequestDone: () => undefined, text: async () => '', contentType: 'text/plain' },
      limits,
      log: () => undefined,
      warn: () => undefined,
      now: () => 0,
    });
    gatewayListening = await listen(
      server,
      { host: '127.0.0.1', port: 0, allowedHosts: [], allowedOrigins: [], limits },
      () => undefined,
    );
    return gatewayListening.port;
  }

  const servers = {
    'serve-http': {
      start: gateway,
      path: '/mcp',
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
      words: `"message":"the request body is over this server's limit of ${CAP} bytes ([http] max_body_bytes)"`,
    },
    'serve-openai': {
      start: async () => (await harness.start({ limits: { maxBodyBytes: CAP } })).port,
      path: '/v1/chat/completions',
      message: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      words: `"message":"the request body is over the router's limit of 4 KiB; send large files to the upstream directly"`,
    },
  };

  it.each(Object.keys(servers) as (keyof typeof servers)[])(
    '%s: a chunked body over its cap is refused with a 413 in its own words, without waiting for the end',
    async (name) => {
      const { start, path, words } = servers[name];
      const port = await start();
      const connection = new RawConnection(port);
      await connection.ready();
      // The body never ends: a 413 can only come from a server that stopped reading at its cap.
      connection.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\n\r\n${(2 * CAP).toString(16)}\r\n${' '.repeat(2 * CAP)}\r\n`,
      );
      const answer = await eventuallyRead(
        () => connection.received,
        (text) => text.includes(words),
      );
      connection.destroy();
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(name === 'serve-http' ? mcpBodies : harness.upstream.hits).toEqual([]);
    },
  );

  it.each(Object.keys(servers) as (keyof typeof servers)[])(
    '%s: a body of exactly its cap, sent chunked, is read whole',
    async (name) => {
      const { start, path, message } = servers[name];
      const port = await start();
      const text = JSON.stringify(message);
      const body = text + ' '.repeat(CAP - text.length);
      const answer = await send(port, { path, headers: { 'transfer-encoding': 'chunked' }, body });
      expect(answer.status).toBe(200);
      if (name === 'serve-http') expect(mcpBodies).toEqual([message]);
      else expect(harness.upstream.hits.map((hit) => hit.body.toString('utf8'))).toEqual([body]);
    },
  );
});

/** Reads `read()` until `holds`, then returns it (a guard against hanging, never a speed check). */
async function eventuallyRead(read: () => string, holds: (text: string) => boolean): Promise<string> {
  await eventually(() => holds(read()), 'the answer to arrive');
  return read();
}

describe('the reader', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A server whose every request body goes through the reader with `rules`; what each read ended in. */
  async function readerServer(rules: BodyRules): Promise<{ port: number; outcomes: Promise<string>[] }> {
    const outcomes: Promise<string>[] = [];
    server = createServer((req: IncomingMessage, res) => {
      const outcome = readRequestBody(req, res, rules).then(
        (body) => `read ${body.length} bytes`,
        (error: BodyRefused) => `${error.status} ${error.message}`,
      );
      outcomes.push(outcome);
      void outcome.then((text) => res.writeHead(200).end(text));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, outcomes };
  }

  const rules = (more: Partial<BodyRules> = {}): BodyRules => ({
    maxBytes: CAP,
    tooLarge: () => new BodyRefused(413, 'too large'),
    ...more,
  });

  it("tells the server's budget of a declared length once, and of a chunked body chunk by chunk", async () => {
    const told: number[] = [];
    const { port, outcomes } = await readerServer(rules({ hold: (bytes) => told.push(bytes) }));
    await send(port, { path: '/', body: 'x'.repeat(1000) });
    await send(port, { path: '/', body: 'y'.repeat(1000), headers: { 'transfer-encoding': 'chunked' } });
    expect(await Promise.all(outcomes)).toEqual(['read 1000 bytes', 'read 1000 bytes']);
    expect(told[0]).toBe(1000);
    expect(told.slice(1).reduce((sum, bytes) => sum + bytes, 0)).toBe(1000);
  });

  it('ends the read with the refusal of a budget that has no room', async () => {
    const { port, outcomes } = await readerServer(
      rules({
        hold: () => {
          throw new BodyRefused(503, 'no room');
        },
      }),
    );
    await send(port, { path: '/', body: 'x'.repeat(100), headers: { 'transfer-encoding': 'chunked' } }).catch(
      () => undefined,
    );
    expect(await outcomes[0]).toBe('503 no room');
  });

  it('gives up on a body that stopped arriving, with the stall refusal', async () => {
    const { port, outcomes } = await readerServer(
      rules({ idle: { ms: 50, stalled: () => new BodyRefused(408, 'stalled') } }),
    );
    const quiet = new RawConnection(port);
    await quiet.ready();
    quiet.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nhalf`);
    await eventually(() => outcomes.length === 1, 'the request to arrive');
    expect(await outcomes[0]).toBe('408 stalled');
    quiet.destroy();
  });

  it('refuses a body the client cut off with a 400', async () => {
    const { port, outcomes } = await readerServer(rules());
    const cut = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-length': 100 } });
    cut.on('error', () => undefined);
    cut.write('half');
    await eventually(() => outcomes.length === 1, 'the request to arrive');
    cut.destroy();
    expect(await outcomes[0]).toBe('400 the request body did not arrive whole');
  });
});
