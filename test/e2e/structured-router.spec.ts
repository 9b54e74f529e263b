/**
 * `system1 serve-openai` end to end: the built binary, a fake System One engine as the fast model, a fake
 * OpenAI upstream as the slow one, and the official `openai` client as the application.
 */
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { OpenAiUpstreamFake } from '../fakes/openai-upstream.fake';
import { TypedSystemOneFake } from '../fakes/typed-systemone.fake';
import { FAST_OBJECT, NETFLIX, SYSTEM, Transaction } from '../fixtures/bank-transaction';
import { type Env, requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';
import { RouterProcess } from './helpers/router-process';
import { freePort } from '../helpers/router-harness';

const CALLER_KEY = 'sk-e2e-caller-key-0987654321';
const ROUTER_TOKEN = 'e2e-router-token-5555';

const resources = Resources.perTest();
let engine: TypedSystemOneFake;
let upstream: OpenAiUpstreamFake;
let upstreamUrl: string;
let routers: RouterProcess[] = [];
const sentBodies: string[] = [];

beforeAll(() => requireBuild());

beforeEach(async () => {
  engine = new TypedSystemOneFake();
  engine.pickOption = { category: 'subscriptions', channel: 'online' };
  await engine.start();
  upstream = new OpenAiUpstreamFake();
  upstream.answer = { category: 'subscriptions', is_recurring: true, channel: 'online', review_priority: 1 };
  upstreamUrl = await upstream.start();
  sentBodies.length = 0;
});

afterEach(async () => {
  await Promise.all(routers.map((router) => router.stop()));
  routers = [];
  await engine.stop();
  await upstream.stop();
});

function engineEnv(extra: Env = {}): Env {
  return { SYSTEM1_PROVIDER: 'systemone', SYSTEM1_SYSTEMONE_ENDPOINT: engine.url.href.replace(/\/$/, ''), ...extra };
}

async function serve(
  args: string[] = [],
  env: Env = {},
  sandbox: Sandbox = resources.sandbox(),
): Promise<RouterProcess> {
  const router = await RouterProcess.start(sandbox, ['--upstream', upstreamUrl, ...args], engineEnv(env));
  routers.push(router);
  return router;
}

function client(router: RouterProcess, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: router.baseUrl,
    apiKey: CALLER_KEY,
    maxRetries: 0,
    defaultHeaders: headers,
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') sentBodies.push(init.body);
      return fetch(url, init);
    },
  });
}

const request = () => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system' as const, content: SYSTEM },
    { role: 'user' as const, content: NETFLIX },
  ],
  response_format: zodResponseFormat(Transaction, 'Transaction'),
});

describe('serve-openai with a fast engine and an upstream', () => {
  it('answers an eligible request fast: the upstream receives nothing, the engine one request', async () => {
    const router = await serve();
    expect(router.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const { data, response } = await client(router).chat.completions.parse(request()).withResponse();
    expect(response.headers.get('x-system1-route')).toBe('fast');
    expect(data.choices[0].message.parsed).toEqual(FAST_OBJECT);
    expect(upstream.hits).toEqual([]);
    const systemOne = engine.requests.filter((r) => r.path === '/v1/systemone');
    expect(systemOne).toHaveLength(1);
    expect(systemOne[0].body).toMatchObject({
      state: {
        conversation: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: NETFLIX },
        ],
      },
      questions: {
        category: {
          type: 'choice',
          instructions:
            'Decide the field `category` of the Transaction the conversation asks for: What the money was spent on',
        },
        is_recurring: { type: 'noul' },
        channel: { type: 'choice', criteria: { online: null, in_store: null, 'Not stated or not applicable': null } },
        review_priority: { type: 'score', criteria: ['1', '2', '3'] },
      },
    });
    const line = /s1r_\S+ POST \/v1\/chat\/completions -> 200 fast/;
    expect(await router.waitForStderr(line)).toMatch(line);
  });

  it("answers POST /v1/decisions itself: the engine asked, the upstream nothing, the app's key sent nowhere", async () => {
    const router = await serve();
    const { data, response } = await client(router)
      .decisions.create({
        model: 'system1',
        input: NETFLIX,
        questions: [{ type: 'predicate', name: 'recurring', instructions: 'Is this payment recurring?' }],
      })
      .withResponse();
    expect(data.answers).toEqual([{ type: 'predicate', name: 'recurring', probability: expect.any(Number) }]);
    expect(data.model).toMatch(/^systemone/);
    expect(upstream.hits).toEqual([]);
    const asked = engine.requests.filter((r) => r.path === '/v1/systemone');
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0].headers)).not.toContain(CALLER_KEY);
    const id = response.headers.get('x-system1-request-id')!;
    expect(await router.waitForStderr(`${id} POST /v1/decisions -> 200`)).toContain(id);
    expect(router.stderr()).not.toContain(CALLER_KEY);
  });

  it('answers a 0-10 rating fast on an engine that scores 10 levels, asking it as a choice among the 11', async () => {
    engine.pickOption = { rating: '7' };
    const Review = z.object({
      rating: z.number().int().min(0).max(10).describe('How likely the customer is to recommend us'),
    });
    const router = await serve();
    const { data, response } = await client(router)
      .chat.completions.parse({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Rate this review: great support, fixed in minutes.' }],
        response_format: zodResponseFormat(Review, 'Review'),
      })
      .withResponse();
    expect(response.headers.get('x-system1-route')).toBe('fast');
    expect(data.choices[0].message.parsed).toEqual({ rating: 7 });
    expect(upstream.hits).toEqual([]);
    const [asked] = engine.requests.filter((r) => r.path === '/v1/systemone');
    expect((asked.body as { questions: Record<string, unknown> }).questions.rating).toMatchObject({
      type: 'choice',
      criteria: Object.fromEntries(Array.from({ length: 11 }, (_, level) => [String(level), String(level)])),
    });
  });

  it('sends a low-confidence request upstream untouched', async () => {
    engine.noulOf = { is_recurring: 0.85 }; // |2p - 1| = 0.7, under the default 0.8
    const router = await serve();
    const { data, response } = await client(router).chat.completions.parse(request()).withResponse();
    expect(response.headers.get('x-system1-route')).toBe(
      'low_confidence; detail="below min_confidence 0.8: is_recurring at 0.70"',
    );
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(upstream.hits[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(data.choices[0].message.parsed).toEqual(upstream.answer);
  });

  it("reading the route through the SDK's raw response does not change it (X-Stainless-Raw-Response)", async () => {
    const router = await serve();
    const openai = client(router);
    // What openai-python sends for with_raw_response ("true") and with_streaming_response ("stream").
    const routeOf = async (mark?: string) => {
      const headers = mark ? { 'X-Stainless-Raw-Response': mark } : undefined;
      const response = await openai.chat.completions.parse(request(), { headers }).asResponse();
      return response.headers.get('x-system1-route');
    };
    for (const mark of [undefined, 'true', 'stream']) expect([mark, await routeOf(mark)]).toEqual([mark, 'fast']);
    expect(upstream.hits).toEqual([]);

    engine.noulOf = { is_recurring: 0.85 };
    const plain = await routeOf();
    expect(plain).toBe('low_confidence; detail="below min_confidence 0.8: is_recurring at 0.70"');
    const { data, response } = await openai.chat.completions
      .parse(request(), { headers: { 'X-Stainless-Raw-Response': 'true' } })
      .withResponse();
    expect(response.headers.get('x-system1-route')).toBe(plain);
    expect(data.choices[0].message.parsed).toEqual(upstream.answer);
    // Forwarded as it came, like the SDK's other headers.
    expect(upstream.hits.map((hit) => hit.headers['x-stainless-raw-response'])).toEqual([undefined, 'true']);
  });

  it('sends an ineligible schema upstream without asking the engine', async () => {
    const router = await serve();
    const { response } = await client(router)
      .chat.completions.create({
        ...request(),
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'Note',
            schema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
          },
        },
      })
      .withResponse();
    expect(response.headers.get('x-system1-route')).toBe('ineligible; detail="field tags is an array"');
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(engine.requests.filter((r) => r.path === '/v1/systemone')).toEqual([]);
  });

  it('passes a streaming request through as a stream', async () => {
    const router = await serve();
    const stream = await client(router).chat.completions.create({ ...request(), stream: true });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toEqual(upstream.answer);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(await router.waitForStderr('ineligible; detail="option stream=true')).toContain(
      'ineligible; detail="option stream=true',
    );
  });

  it('answers the Responses API the same way: fast when eligible, and a stream passed through', async () => {
    const router = await serve();
    const openai = client(router);
    const input = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: NETFLIX },
    ];
    const text = { format: zodTextFormat(Transaction, 'Transaction') };
    const { data, response } = await openai.responses.parse({ model: 'gpt-4o-mini', input, text }).withResponse();
    expect(response.headers.get('x-system1-route')).toBe('fast');
    expect(data.output_parsed).toEqual(FAST_OBJECT);
    expect(upstream.hits).toEqual([]);

    const stream = await openai.responses.create({ model: 'gpt-4o-mini', input, text, stream: true });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    expect(JSON.parse(deltas.join(''))).toEqual(upstream.answer);
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0].url).toBe('/v1/responses');
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[sentBodies.length - 1]);
  });

  it('falls back to the upstream with fast_model_error when the engine fails', async () => {
    engine.fault = 'status-500';
    const router = await serve();
    const { response } = await client(router).chat.completions.parse(request()).withResponse();
    expect(response.headers.get('x-system1-route')).toMatch(/^fast_model_error; detail="field category: /);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
  });

  it('shadow mode serves the slow answer, records agreement, and router-report reads it', async () => {
    const sandbox = resources.sandbox();
    const shadowLog = path.join(sandbox.dir, 'shadow.jsonl');
    const router = await serve(['--shadow'], { SYSTEM1_ROUTER_SHADOW_LOG: shadowLog }, sandbox);
    const openai = client(router);
    const { data, response } = await openai.chat.completions.parse(request()).withResponse();
    expect(response.headers.get('x-system1-route')).toBe('fast; shadow');
    expect(data.id).toBe('chatcmpl-upstream');
    engine.noulOf = { is_recurring: 0.85 };
    upstream.answer = { ...upstream.answer, category: 'dining' };
    await openai.chat.completions.parse(request());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const records = readFileSync(shadowLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.route)).toEqual(['fast', 'low_confidence']);
    expect(records[0].fields.every((f: { agree: boolean }) => f.agree)).toBe(true);
    expect(records[1].fields.find((f: { id: string }) => f.id === 'category')).toMatchObject({
      fast: 'subscriptions',
      slow: 'dining',
      agree: false,
    });

    const report = await runCli(['router-report', '--log', shadowLog, '--json'], sandbox.env());
    expect(report.code).toBe(0);
    const json = JSON.parse(report.stdout);
    expect(json.records).toBe(2);
    expect(json.rows.find((row: { threshold: number }) => row.threshold === 0.8)).toMatchObject({
      fast: 1,
      fast_share: 0.5,
      compared: 1,
      agreed: 1,
      agreement: 1,
    });
    expect(json.rows.find((row: { threshold: number }) => row.threshold === 0.5)).toMatchObject({
      fast: 2,
      compared: 2,
      agreed: 1,
      agreement: 0.5,
    });
    expect(json.suggested).toMatchObject({ threshold: 0.75 });
    const text = await runCli(['router-report', '--log', shadowLog], sandbox.env());
    expect(text.stdout).toContain('lowest threshold with agreement >= 95.0%: 0.75');
  });
});

describe('serve-openai guards', () => {
  it('requires the bearer token when SYSTEM1_ROUTER_TOKEN is set, and logs neither secret', async () => {
    const router = await serve([], { SYSTEM1_ROUTER_TOKEN: ROUTER_TOKEN });
    await expect(client(router).chat.completions.parse(request())).rejects.toMatchObject({ status: 401 });
    const { response } = await client(router, { 'x-system1-token': `Bearer ${ROUTER_TOKEN}` })
      .chat.completions.parse(request())
      .withResponse();
    expect(response.headers.get('x-system1-route')).toBe('fast');
    engine.noulOf = { is_recurring: 0.6 };
    await client(router, { 'x-system1-token': ROUTER_TOKEN }).chat.completions.parse(request());
    expect(upstream.hits[0].headers['x-system1-token']).toBeUndefined();
    await router.stop();
    for (const secret of [ROUTER_TOKEN, CALLER_KEY, NETFLIX]) expect(router.stderr()).not.toContain(secret);
  });

  it('refuses to bind beyond loopback without the opt-in', async () => {
    const sandbox = resources.sandbox();
    const result = await runCli(['serve-openai', '--host', '0.0.0.0', '--port', '0'], sandbox.env());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('router host 0.0.0.0 is not this machine');
  });

  it('reports a broken [router] table instead of starting', async () => {
    const sandbox = resources.sandbox();
    const config = sandbox.writeConfig('[router]\nmin_confidence = 2\ntoken = "oops"\n');
    const result = await runCli(['serve-openai', '--port', '0'], sandbox.env({ SYSTEM1_CONFIG: config }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('router.min_confidence must be a number in [0, 1]');
    expect(result.stderr).toContain('router.token is a secret');
    expect(result.stderr).not.toContain('oops');
  });

  it('reports a [decisions.models] alias naming an unknown provider instead of starting', async () => {
    const sandbox = resources.sandbox();
    const config = sandbox.writeConfig('[decisions.models.triage]\nchain = ["nowhere"]\n');
    const result = await runCli(['serve-openai', '--port', '0'], sandbox.env({ SYSTEM1_CONFIG: config }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[decisions.models.triage] chain: "nowhere" is not a configured');
  });

  it('refuses an upstream that would carry the key in clear text', async () => {
    const result = await runCli(
      ['serve-openai', '--port', '0', '--upstream', 'http://api.example.com/v1'],
      resources.sandbox().env(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('must use https unless it is on this machine');
  });

  it('refuses, at start, an upstream that is the router itself', async () => {
    const port = String(await freePort());
    const result = await runCli(
      ['serve-openai', '--port', port, '--upstream', `http://localhost:${port}/v1`],
      resources.sandbox().env(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`router upstream http://localhost:${port} is this router itself`);
  });

  it('refuses a blank SYSTEM1_ROUTER_TOKEN instead of running without a token', async () => {
    const result = await runCli(
      ['serve-openai', '--port', '0', '--upstream', upstreamUrl],
      resources.sandbox().env({ SYSTEM1_ROUTER_TOKEN: '   ' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SYSTEM1_ROUTER_TOKEN is set but blank');
  });

  it('two routers pointed at each other: the client gets a 508 loop_detected, once', async () => {
    const [portA, portB] = [String(await freePort()), String(await freePort())];
    const a = await RouterProcess.start(
      resources.sandbox(),
      ['--port', portA, '--upstream', `http://127.0.0.1:${portB}/v1`],
      engineEnv(),
    );
    routers.push(a);
    const b = await RouterProcess.start(
      resources.sandbox(),
      ['--port', portB, '--upstream', `http://127.0.0.1:${portA}/v1`],
      engineEnv(),
    );
    routers.push(b);
    const openai = new OpenAI({ baseURL: a.baseUrl, apiKey: CALLER_KEY, maxRetries: 2 });
    await expect(openai.models.list()).rejects.toMatchObject({ status: 508, code: 'loop_detected' });
    // A relays to B, B back to A, and A, seeing its own Via entry, answers the 508 itself (logged without a route).
    const answeredByA = await a.waitForStderr(/ -> 508 ineligible/);
    expect(answeredByA.match(/ -> 508 \(\d+ ms\)/g)).toHaveLength(1);
    expect(answeredByA.match(/ -> \d{3} /g)).toHaveLength(2);
  });

  it('refuses a request whose Host is not the router (DNS rebinding) with a readable 403', async () => {
    const router = await serve();
    // What a page's browser sends after its name was rebound to 127.0.0.1: its own name in Host.
    const { request } = await import('node:http');
    const url = new URL(router.baseUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      request(
        { host: url.hostname, port: url.port, path: '/v1/models', headers: { host: `rebound.example:${url.port}` } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'host_not_allowed' });
    expect(upstream.hits).toEqual([]);
  });
});
