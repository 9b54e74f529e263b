/**
 * Slow and numerous clients: the router closes a connection whose headers or body never finish, an idle
 * kept-alive one, and any beyond its connection cap. The timeouts are set short here; the test only asserts
 * that the server, not the client, closed the socket (waiting up to PATIENCE_MS for it).
 */
import { RawConnection, RouterHarness, send } from '../../helpers/router-harness';

const harness = RouterHarness.use();

const PATIENCE_MS = 10_000;
const SHORT = { headersTimeoutMs: 200, requestTimeoutMs: 400, keepAliveTimeoutMs: 200, checkIntervalMs: 50 };

async function connection(port: number, text = ''): Promise<RawConnection> {
  const raw = new RawConnection(port);
  await raw.ready();
  if (text) raw.write(text);
  return raw;
}

describe('a slow client', () => {
  it('whose headers never end is closed by the router with a 408', async () => {
    const router = await harness.start({ limits: SHORT });
    const raw = await connection(
      router.port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${router.port}\r\nContent-Type: appl`,
    );
    expect(await raw.closedWithin(PATIENCE_MS)).toBe(true);
    expect(raw.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('whose body never ends is closed by the router', async () => {
    const router = await harness.start({ limits: SHORT });
    const raw = await connection(
      router.port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${router.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`,
    );
    expect(await raw.closedWithin(PATIENCE_MS)).toBe(true);
    expect(harness.upstream.hits).toEqual([]);
  });

  it('idle on a kept-alive connection is closed after the keep-alive timeout', async () => {
    const router = await harness.start({ limits: SHORT });
    const raw = await connection(router.port, `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:${router.port}\r\n\r\n`);
    expect(await raw.closedWithin(PATIENCE_MS)).toBe(true);
    expect(raw.received).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the connection cap', () => {
  it('closes connections over it at once while the held ones stay open, and takes new ones when one ends', async () => {
    const router = await harness.start({ limits: { maxConnections: 3 } });
    const held = await Promise.all([1, 2, 3].map(() => connection(router.port, 'GET /v1/models HTTP/1.1\r\n')));
    const extra = await connection(router.port);
    expect(await extra.closedWithin(PATIENCE_MS)).toBe(true);
    expect(held.map((raw) => raw.isClosed)).toEqual([false, false, false]);
    expect(harness.logLines.join('\n')).toContain('connection cap (3)');

    held[0].destroy();
    await held[0].closed;
    // The router notices the close on its side a moment later: retry a few times until it takes the request.
    let answer;
    for (let attempt = 0; attempt < 50 && !answer; attempt++) {
      answer = await send(router.port, { method: 'GET', path: '/v1/models' }).catch(() => undefined);
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answer?.status).toBe(200);
    for (const raw of held) raw.destroy();
  });
});
