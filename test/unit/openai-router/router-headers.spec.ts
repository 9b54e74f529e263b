/** Headers: hop-by-hop ones stay on their hop in both directions; the route header stays short and printable. */
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, RouterHarness, send } from '../../helpers/router-harness';

const harness = RouterHarness.use();

describe('hop-by-hop headers (RFC 9110 7.6.1)', () => {
  it("the caller's, and any it names in Connection, are not forwarded; end-to-end ones are", async () => {
    const router = await harness.start();
    const answer = await send(router.port, {
      method: 'GET',
      path: '/v1/models',
      headers: {
        connection: 'keep-alive, X-Hop-Secret',
        'x-hop-secret': 'for-the-router-only',
        'keep-alive': 'timeout=5',
        'proxy-connection': 'keep-alive',
        te: 'trailers',
        upgrade: 'websocket',
        'x-end-to-end': 'kept',
      },
    });
    expect(answer.status).toBe(200);
    const received = harness.upstream.hits[0].headers;
    for (const name of ['x-hop-secret', 'keep-alive', 'proxy-connection', 'te', 'upgrade'])
      expect(received[name]).toBeUndefined();
    expect(received['x-end-to-end']).toBe('kept');
  });

  it("the upstream's, and any it names in Connection, are not returned to the caller", async () => {
    harness.upstream.extraHeaders = {
      connection: 'X-Upstream-Hop',
      'x-upstream-hop': 'between-router-and-upstream',
      'proxy-connection': 'keep-alive',
      'x-answer-header': 'kept',
    };
    const router = await harness.start();
    const answer = await send(router.port, { method: 'GET', path: '/v1/models' });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-upstream-hop']).toBeUndefined();
    expect(answer.headers['proxy-connection']).toBeUndefined();
    expect(answer.headers['x-answer-header']).toBe('kept');
  });
});

describe("the router's own report headers", () => {
  it("an upstream's x-system1-request-id or x-system1-route (another router's, or a lying one's) never replaces them", async () => {
    harness.upstream.extraHeaders = { 'x-system1-request-id': 'upstream-chosen-id', 'x-system1-route': 'fast' };
    const router = await harness.start();
    const answer = await send(router.port, { method: 'GET', path: '/v1/models' });
    expect(answer.status).toBe(200);
    const id = answer.headers['x-system1-request-id'];
    expect(id).toMatch(/^s1r_[0-9a-f-]{36}$/);
    // The id the caller reads is the one the operator finds in the log.
    expect(harness.answered(200)).toEqual([expect.stringContaining(`${String(id)} GET /v1/models -> 200 ineligible`)]);
    expect(answer.headers['x-system1-route']).toBe(
      'ineligible; detail="GET /v1/models is not a structured-output endpoint"',
    );
  });
});

/** A schema whose one field has the given name and is free text, so the route detail names it. */
const namedFieldRequest = (name: string) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'hi' }],
  response_format: {
    type: 'json_schema' as const,
    json_schema: { name: 'Note', schema: { type: 'object', properties: { [name]: { type: 'string' } } } },
  },
});

describe('the route header for a field with a hostile name', () => {
  it('a 20,000-character property name: the header stays short, and the client gets the upstream answer', async () => {
    const router = await harness.start();
    const openai = new OpenAI({ baseURL: router.baseUrl, apiKey: 'sk-long', maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create(namedFieldRequest('a'.repeat(20_000)))
      .withResponse();
    expect(data.id).toBe('chatcmpl-upstream');
    const route = response.headers.get('x-system1-route') ?? '';
    expect(route).toMatch(/^ineligible; detail="field a+/);
    expect(route.length).toBeLessThanOrEqual(400);
    for (const line of harness.logLines) expect(line.length).toBeLessThanOrEqual(600);
  });

  it('control characters and non-ASCII never reach the header raw', async () => {
    const router = await harness.start();
    const answer = await send(router.port, {
      body: JSON.stringify(namedFieldRequest('x\r\nX-Injected: 1\u0000\u001b[31m\u2028é')),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-injected']).toBeUndefined();
    expect(answer.headers['x-system1-route']).toMatch(/^[\x20-\x7e]+$/);
  });

  it('the shadow log keeps the detail short too', async () => {
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog });
    await send(router.port, { body: JSON.stringify(namedFieldRequest('b'.repeat(20_000))) });
    const text = await eventually(
      () => readIfThere(shadowLog),
      (t) => t.includes('\n'),
    );
    const record = JSON.parse(text);
    expect(record.detail).toMatch(/^field b+/);
    expect(record.detail.length).toBeLessThanOrEqual(300);
  });
});

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
