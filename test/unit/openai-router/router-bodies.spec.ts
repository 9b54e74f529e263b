/** Request bodies: a readable 413 over the limit (declared or chunked), and a cap on what all requests buffer at once. */
import OpenAI from 'openai';
import { request } from 'node:http';
import { errorOf, RouterHarness, send, upload, uploadLikeCurl } from '../../helpers/router-harness';

const harness = RouterHarness.use();

/** A valid chat request padded with spaces to `bytes`. */
const paddedJson = (bytes: number) => {
  const text = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  return text + ' '.repeat(bytes - text.length);
};

describe('a body over the limit', () => {
  it('declared in Content-Length over the default 64 MiB: a 413 the client reads before it has uploaded it all', async () => {
    const router = await harness.start();
    const answer = await upload(router.port, 65 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(errorOf(answer)).toMatchObject({
      code: 'request_too_large',
      type: 'system1_router_error',
      message: expect.stringContaining('64 MiB'),
    });
    expect(answer.sent).toBeLessThan(65 * 1024 * 1024);
    expect(harness.upstream.hits).toEqual([]);
  });

  it('sent chunked: the router answers a readable 413 at the limit, without waiting for the end of the body', async () => {
    const router = await harness.start({ limits: { maxBodyBytes: 256 * 1024 } });
    // The body never ends: a 413 can only come from a router that stopped at the limit. (What the client's
    // socket accepted says nothing: after its answer the router reads and drops up to MAX_DRAIN_BYTES.)
    const answer = await upload(router.port, 1024 * 1024, { chunked: true, holdOpen: true });
    expect(answer.status).toBe(413);
    expect(errorOf(answer)).toMatchObject({ code: 'request_too_large', message: expect.stringContaining('256 KiB') });
    expect(harness.upstream.hits).toEqual([]);
  });

  it('sent after a 100 Continue, as curl sends a big body: each of ten uploads reads its 413 (the rest is drained, not reset away)', async () => {
    const router = await harness.start({ limits: { maxBodyBytes: 256 * 1024 } });
    const answers = [];
    for (let i = 0; i < 10; i++)
      answers.push(await uploadLikeCurl(router.port, '/v1/chat/completions', 8 * 1024 * 1024));
    expect(answers.map(({ received }) => received.split('\r\n')[0])).toEqual(
      Array(10).fill('HTTP/1.1 413 Payload Too Large'),
    );
    expect(answers.every(({ received }) => received.includes('request_too_large'))).toBe(true);
    expect(harness.upstream.hits).toEqual([]);
  });

  it('the official client gets a 413 error, not a connection error, and sends it once', async () => {
    const router = await harness.start({ limits: { maxBodyBytes: 1024 * 1024 } });
    const openai = new OpenAI({ baseURL: router.baseUrl, apiKey: 'sk-big', maxRetries: 2 });
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(4 * 1024 * 1024) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 413, code: 'request_too_large' });
    expect(harness.answered(413)).toHaveLength(1);
  });

  it('a body at the limit still goes through', async () => {
    const router = await harness.start({ limits: { maxBodyBytes: 64 * 1024 } });
    const answer = await send(router.port, { body: paddedJson(64 * 1024) });
    expect(answer.status).toBe(200);
    expect(harness.upstream.hits[0].body.length).toBe(64 * 1024);
  });
});

describe('the bytes buffered across requests', () => {
  it('are capped: a request that would pass the cap gets a 503 with Retry-After; it goes through once the first is done', async () => {
    const router = await harness.start({ limits: { maxBodyBytes: 64 * 1024, maxBufferedBytes: 96 * 1024 } });
    const body = paddedJson(60 * 1024);
    let release!: () => void;
    const refused = new Promise<void>((resolve) => (release = resolve));
    // The first request holds 60 KiB of the budget while its body is still arriving (the 100 Continue says admitted).
    let first!: Promise<number>;
    await new Promise<void>((admitted, failed) => {
      const held = request({
        host: '127.0.0.1',
        port: router.port,
        method: 'POST',
        path: '/v1/chat/completions',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' },
      });
      first = new Promise((resolve) => held.once('response', (response) => resolve(response.resume().statusCode ?? 0)));
      held.on('error', failed);
      held.once('continue', () => {
        held.write(body.slice(0, 30 * 1024));
        void refused.then(() => held.end(body.slice(30 * 1024)));
        admitted();
      });
      held.flushHeaders();
    });
    const busy = await send(router.port, { body });
    release();
    expect(busy.status).toBe(503);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(errorOf(busy)).toMatchObject({ code: 'router_busy', message: expect.stringContaining('retry') });
    expect(await first).toBe(200);
    const later = await send(router.port, { body });
    expect(later.status).toBe(200);
    expect(harness.upstream.hits).toHaveLength(2);
  });
});
