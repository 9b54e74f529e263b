/** The router never forwards to itself: refused at start when the upstream is its own address, stopped by Via otherwise. */
import OpenAI from 'openai';
import { loadConfig } from '../../../src/config/config.loader';
import { settleRouterOptions } from '../../../src/openai-router/router-options';
import { errorOf, eventually, freePort, RouterHarness, send } from '../../helpers/router-harness';

const noConfig = () =>
  loadConfig({
    env: { HOME: '/home/u' },
    platform: 'linux',
    readFile: () => {
      throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    },
  });

describe('an upstream that is the router itself', () => {
  it.each([
    [{ port: 8788, upstream: 'http://127.0.0.1:8788/v1' }],
    [{ port: 9000, upstream: 'http://localhost:9000/v1' }],
    [{ port: 9000, host: '::1', upstream: 'http://[::1]:9000/v1' }],
    [{ port: 9000, host: 'localhost', upstream: 'http://127.0.0.1:9000' }],
    [{ port: 80, upstream: 'http://127.0.0.1/v1' }],
    [{ port: 9000, host: '0.0.0.0', allowNonLoopback: true, upstream: 'http://127.0.0.1:9000/v1' }],
  ])('is refused at start: %j', (flags) => {
    const { options, problems } = settleRouterOptions(noConfig(), flags, {});
    expect(options).toBeUndefined();
    expect(problems.join('\n')).toContain('is this router itself');
  });

  it.each([
    [{ port: 8788, upstream: 'http://127.0.0.1:8000/v1' }],
    [{ port: 443, upstream: 'https://api.openai.com/v1' }],
  ])('another port or machine is fine: %j', (flags) => {
    expect(settleRouterOptions(noConfig(), flags, {}).problems).toEqual([]);
  });
});

describe('two routers pointed at each other', () => {
  const harness = RouterHarness.use();

  it('stop at the second hop with a 508 in the OpenAI error shape, which the client does not retry', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await harness.start({ port: portA, upstream: new URL(`http://127.0.0.1:${portB}/v1`) });
    await harness.start({ port: portB, upstream: new URL(`http://127.0.0.1:${portA}/v1`) });
    const openai = new OpenAI({ baseURL: a.baseUrl, apiKey: 'sk-loop', maxRetries: 2 });
    const error = await openai.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 508, code: 'loop_detected' });
    // A relays to B, B relays to A, A sees its own hop and answers 508, relayed back: three requests, however many retries.
    const answered = await eventually(
      () => harness.logLines.filter((line) => / -> \d{3}/.test(line)),
      (lines) => lines.length >= 3,
    );
    expect(answered).toHaveLength(3);
    expect(harness.answered(508)).toHaveLength(3);
    expect(harness.logLines.filter((line) => / -> 508 \(\d+ ms\)$/.test(line))).toHaveLength(1);
  });

  it('the answer a plain HTTP client reads names the fix', async () => {
    const port = await freePort();
    await harness.start({ port, upstream: new URL(`http://127.0.0.1:${port}/v1`) });
    const answer = await send(port, { method: 'GET', path: '/v1/models' });
    expect(answer.status).toBe(508);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(errorOf(answer)).toMatchObject({
      type: 'system1_router_error',
      code: 'loop_detected',
      message: expect.stringContaining('upstream'),
    });
  });
});

describe('the hop header', () => {
  const harness = RouterHarness.use();

  it('is added to what the upstream receives, after any Via the caller sent', async () => {
    const router = await harness.start();
    const answer = await send(router.port, {
      method: 'GET',
      path: '/v1/models',
      headers: { via: '1.1 corporate-proxy' },
    });
    expect(answer.status).toBe(200);
    expect(harness.upstream.hits[0].headers.via).toMatch(/^1\.1 corporate-proxy, 1\.1 system1-router-[0-9a-f]+$/);
  });
});
