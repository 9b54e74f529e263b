/**
 * The router on a loopback socket with a stub fast engine and the fake upstream, driven by the official
 * `openai` client: what a caller sees, what the upstream receives, what is logged.
 */
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { OpenAiRouterService, type RunningRouter } from '../../../src/openai-router/openai-router.service';
import type { ListenOptions } from '../../../src/openai-router/router-options';
import { OpenAiUpstreamFake } from '../../fakes/openai-upstream.fake';
import { FAST_OBJECT, NETFLIX, SYSTEM, Transaction } from '../../fixtures/bank-transaction';
import { choice, noul, score, StubDecider } from '../../helpers/stub-decider';

const CALLER_KEY = 'sk-caller-secret-1234567890';
const ROUTER_TOKEN = 'router-token-abcdef';

const confident = () =>
  new StubDecider({
    category: choice('subscriptions', 0.97),
    is_recurring: noul(0.98),
    channel: choice('online', 0.9),
    review_priority: score(0, 0.95),
  });

let upstream: OpenAiUpstreamFake;
let upstreamUrl: string;
let dir: string;
let running: RunningRouter | undefined;
let logLines: string[];
const sentBodies: string[] = [];

beforeEach(async () => {
  upstream = new OpenAiUpstreamFake();
  upstream.answer = { category: 'subscriptions', is_recurring: true, channel: 'online', review_priority: 2 };
  upstreamUrl = await upstream.start();
  dir = mkdtempSync(path.join(tmpdir(), 'system1-router-'));
  logLines = [];
  sentBodies.length = 0;
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void logLines.push(String(args[0])));
  }
});

afterEach(async () => {
  await running?.close();
  running = undefined;
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
  jest.restoreAllMocks();
});

async function start(decider: StubDecider, overrides: Partial<ListenOptions> = {}): Promise<OpenAI> {
  const options: ListenOptions = {
    host: '127.0.0.1',
    port: 0,
    upstream: new URL(upstreamUrl),
    minConfidence: 0.8,
    shadow: false,
    shadowLog: path.join(dir, 'shadow.jsonl'),
    ...overrides,
  };
  running = await new OpenAiRouterService(decider.decide).listen(options);
  return client();
}

function client(headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: running!.baseUrl,
    apiKey: CALLER_KEY,
    maxRetries: 0,
    defaultHeaders: headers,
    // Records the exact bytes the client sent, to compare with what the upstream received.
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') sentBodies.push(init.body);
      return fetch(url, init);
    },
  });
}

const messages = [
  { role: 'system' as const, content: SYSTEM },
  { role: 'user' as const, content: NETFLIX },
];

describe('an eligible request every field of which is confident', () => {
  it('is answered by the fast engine; the upstream receives nothing', async () => {
    const decider = confident();
    const openai = await start(decider);
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages, response_format: zodResponseFormat(Transaction, 'Transaction') })
      .withResponse();
    expect(upstream.hits).toEqual([]);
    expect(response.headers.get('x-system1-route')).toBe('fast');
    expect(response.headers.get('x-system1-request-id')).toMatch(/^s1r_/);
    expect(JSON.parse(data.choices[0].message.content ?? '')).toEqual(FAST_OBJECT);
    expect(data).toMatchObject({
      object: 'chat.completion',
      model: 'system1:stub/d1',
      choices: [{ finish_reason: 'stop', message: { role: 'assistant' } }],
    });
    expect(decider.requests[0].state).toEqual({
      conversation: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: NETFLIX },
      ],
    });
    expect(Object.keys(decider.requests[0].questions)).toEqual([
      'category',
      'is_recurring',
      'channel',
      'review_priority',
    ]);
  });

  it('parses with chat.completions.parse and zodResponseFormat', async () => {
    const openai = await start(confident());
    const completion = await openai.chat.completions.parse({
      model: 'gpt-4o-mini',
      messages,
      response_format: zodResponseFormat(Transaction, 'Transaction'),
    });
    expect(completion.choices[0].message.parsed).toEqual(FAST_OBJECT);
  });

  it('answers the Responses API too (responses.parse and zodTextFormat)', async () => {
    const openai = await start(confident());
    const response = await openai.responses.parse({
      model: 'gpt-4o-mini',
      instructions: SYSTEM,
      input: NETFLIX,
      text: { format: zodTextFormat(Transaction, 'Transaction') },
    });
    expect(upstream.hits).toEqual([]);
    expect(response.output_parsed).toEqual(FAST_OBJECT);
    expect(response.status).toBe('completed');
  });

  it('maps a null option to null', async () => {
    const decider = confident();
    decider.table.channel = choice('Not stated or not applicable', 0.9);
    const openai = await start(decider);
    const completion = await openai.chat.completions.parse({
      model: 'gpt-4o-mini',
      messages,
      response_format: zodResponseFormat(Transaction, 'Transaction'),
    });
    expect(completion.choices[0].message.parsed).toMatchObject({ channel: null });
  });
});

describe('requests that go upstream untouched', () => {
  it('a low-confidence field: the upstream receives the exact original body and the caller key', async () => {
    const decider = confident();
    decider.table.is_recurring = noul(0.85); // |2p - 1| = 0.7 < 0.8
    const openai = await start(decider);
    const { data, response } = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        temperature: 0,
        messages,
        response_format: zodResponseFormat(Transaction, 'Transaction'),
      })
      .withResponse();
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(upstream.hits[0].url).toBe('/v1/chat/completions');
    expect(upstream.hits[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(response.headers.get('x-system1-route')).toBe(
      'low_confidence; detail="below min_confidence 0.8: is_recurring at 0.70"',
    );
    expect(response.headers.get('x-request-id')).toBe('req_upstream');
    expect(data.id).toBe('chatcmpl-upstream');
  });

  it('an ineligible schema, with the field named', async () => {
    const decider = confident();
    const openai = await start(decider);
    const { response } = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'Note', schema: { type: 'object', properties: { summary: { type: 'string' } } } },
        },
      })
      .withResponse();
    expect(decider.requests).toEqual([]);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(response.headers.get('x-system1-route')).toBe(
      'ineligible; detail="field summary is free text (a string without enum)"',
    );
  });

  it('a schema whose union refers to itself goes upstream as ineligible, not as a 500', async () => {
    const decider = confident();
    const openai = await start(decider);
    const { data, response } = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'Loop',
            schema: {
              type: 'object',
              properties: { a: { $ref: '#/$defs/A' } },
              $defs: { A: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } },
            },
          },
        },
      })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.id).toBe('chatcmpl-upstream');
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(response.headers.get('x-system1-route')).toBe(
      'ineligible; detail="field a nests unions deeper than 16 levels (a union that refers to itself?)"',
    );
    expect(decider.requests).toEqual([]);
  });

  it('a streaming request streams back from the upstream', async () => {
    const openai = await start(confident());
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      response_format: zodResponseFormat(Transaction, 'Transaction'),
    });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toEqual(upstream.answer);
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    expect(logLines.join('\n')).toContain(
      'ineligible; detail="option stream=true is not one the fast engine can honour"',
    );
  });

  it('an engine failure falls back with fast_model_error', async () => {
    const decider = confident();
    decider.failWith = new Error('engine down');
    const openai = await start(decider);
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages, response_format: zodResponseFormat(Transaction, 'Transaction') })
      .withResponse();
    expect(upstream.hits).toHaveLength(1);
    expect(response.headers.get('x-system1-route')).toBe(
      'fast_model_error; detail="the fast engine failed: engine down"',
    );
  });

  it('a question the engine cannot answer falls back with fast_model_error', async () => {
    const decider = confident();
    decider.table.review_priority = new Error('this engine answers no score questions');
    const openai = await start(decider);
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages, response_format: zodResponseFormat(Transaction, 'Transaction') })
      .withResponse();
    expect(response.headers.get('x-system1-route')).toBe(
      'fast_model_error; detail="field review_priority: unsupported (this engine answers no score questions)"',
    );
  });

  it('other endpoints are relayed as they are', async () => {
    const openai = await start(confident());
    const models = await openai.models.list();
    expect(models.data[0].id).toBe('gpt-slow');
    expect(upstream.hits[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
  });

  it('an upstream error is relayed with its status', async () => {
    upstream.status = 503;
    const openai = await start(confident());
    await expect(
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 503 });
  });

  it('an unreachable upstream is a 502 that names no secret', async () => {
    await upstream.stop();
    const openai = await start(confident());
    const error = await openai.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
    expect(JSON.stringify((error as { error?: unknown }).error)).toContain('could not be reached (ECONNREFUSED)');
  });
});

describe('shadow mode', () => {
  it('returns the slow answer and records agreement per field', async () => {
    const shadowLog = path.join(dir, 'logs', 'shadow.jsonl');
    const openai = await start(confident(), { shadow: true, shadowLog });
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages, response_format: zodResponseFormat(Transaction, 'Transaction') })
      .withResponse();
    expect(data.id).toBe('chatcmpl-upstream');
    expect(response.headers.get('x-system1-route')).toBe('fast; shadow');
    expect(upstream.hits[0].body.toString('utf8')).toBe(sentBodies[0]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [record] = readFileSync(shadowLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(record).toMatchObject({
      endpoint: 'chat.completions',
      schema: 'Transaction',
      route: 'fast',
      slow_status: 200,
      min_confidence: 0.8,
    });
    expect(record.fields).toEqual([
      { id: 'category', fast: 'subscriptions', confidence: 0.97, slow: 'subscriptions', agree: true },
      { id: 'is_recurring', fast: true, confidence: expect.closeTo(0.96, 5), slow: true, agree: true },
      { id: 'channel', fast: 'online', confidence: 0.9, slow: 'online', agree: true },
      { id: 'review_priority', fast: 1, confidence: 0.95, slow: 2, agree: false },
    ]);
  });

  it('records ineligible requests too, for the fast share', async () => {
    const shadowLog = path.join(dir, 'shadow.jsonl');
    const openai = await start(confident(), { shadow: true, shadowLog });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.parse(readFileSync(shadowLog, 'utf8'))).toMatchObject({
      route: 'ineligible',
      detail: expect.stringContaining('no JSON schema'),
      slow_status: 200,
    });
  });
});

describe('the router token', () => {
  it('is required when set, and never forwarded or logged', async () => {
    const openai = await start(confident(), { token: ROUTER_TOKEN });
    await expect(openai.chat.completions.create({ model: 'm', messages })).rejects.toMatchObject({ status: 401 });
    const allowed = client({ 'x-system1-token': ROUTER_TOKEN });
    await allowed.chat.completions.create({ model: 'm', messages });
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0].headers['x-system1-token']).toBeUndefined();
    expect(upstream.hits[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    const logged = logLines.join('\n');
    expect(logged).not.toContain(ROUTER_TOKEN);
    expect(logged).not.toContain(CALLER_KEY);
    expect(logged).not.toContain(NETFLIX);
  });
});
