/**
 * `/v1/decisions` and `/v1/systemone` on serve-openai (issue 41), what only the router does: it answers them
 * itself, so the app's `Authorization` (its key for the upstream) goes nowhere, the upstream receives nothing,
 * the router's own threshold and caller-less model policy apply as documented, and its guards come first.
 * The cases both servers share are in served-decisions.spec.ts and served-systemone.spec.ts.
 */
import { AuthenticationError, NotFoundError } from 'openai';
import type { DecisionCreateParams } from 'openai/resources/decisions';
import { LayaFake } from '../../fakes/laya.fake';
import { TypedSystemOneFake } from '../../fakes/typed-systemone.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { APP_KEY, type DecisionsServer, startDecisionsServer, failure } from '../../helpers/decisions-server';
import type { WireCall } from '../../../src/decisions-api/decisions-api';
import type { DecisionWire } from '../../../src/decisions-api/wire-reply';
import { RouterHarness, send } from '../../helpers/router-harness';

const ROUTER_TOKEN = 'tok-router-81';
const engine = new TypedSystemOneFake();
const laya = new LayaFake();
const typesafe = new TypeSafeFake({ apiKey: 'sk-typesafe-test-82' });

const config = (extra: string[] = []) =>
  [
    '[gateway]',
    'provider = "systemone"',
    'fallback = ["laya"]',
    'cooldown_s = 0',
    ...extra,
    '[providers.systemone]',
    `endpoint = "${engine.url.origin}"`,
    'model = "d1-3B"',
    '[providers.laya]',
    `endpoint = "${laya.url.origin}"`,
    '[providers.typesafe]',
    `endpoint = "${typesafe.url.origin}"`,
    'model = "jev-1.14.0"',
    '[router]',
    'min_confidence = 0.99',
  ].join('\n');

const ENV = { SYSTEM1_ROUTER_TOKEN: ROUTER_TOKEN, SYSTEM1_TYPESAFE_API_KEY: 'sk-typesafe-test-82' };
const PREDICATE = { type: 'predicate' as const, instructions: 'Is it a duplicate charge?', name: 'duplicate' };

beforeAll(() => Promise.all([engine.start(), laya.start(), typesafe.start()]));
afterAll(() => Promise.all([engine.stop(), laya.stop(), typesafe.stop()]));
afterEach(() => {
  engine.fault = 'none';
  engine.noulOf = {};
});

const decide = (server: DecisionsServer, body: Partial<DecisionCreateParams>, token?: string) =>
  server
    .client(token)
    .decisions.create({
      model: 'system1',
      input: 'Charged twice.',
      questions: [PREDICATE],
      ...body,
    } as DecisionCreateParams)
    .withResponse();

/** Every header every engine fake received, as one text. */
const engineHeaders = () =>
  JSON.stringify([...engine.requests, ...laya.requests, ...typesafe.requests].map((request) => request.headers));

describe('serve-openai answers the Decisions API itself', () => {
  let server: DecisionsServer;
  beforeAll(async () => {
    server = await startDecisionsServer('serve-openai', { toml: config(), env: ENV });
  });
  afterAll(() => server?.stop());
  // Each test sees only what reached the upstream during it.
  beforeEach(() => {
    server.upstream!.hits.length = 0;
  });

  it("sends the app's Authorization nowhere for /v1/decisions and /v1/systemone: not upstream, not to an engine, not to the log", async () => {
    engine.fault = 'status-500';
    const decided = await decide(server, {});
    // Its fallback took it: two engines asked, neither given the key.
    expect(decided.data.model).toBe('laya/typed-decisions');
    const systemone = await send(server.port, {
      path: '/v1/systemone',
      headers: server.access(),
      body: JSON.stringify({ state: 'x', questions: { angry: { type: 'noul', instructions: 'Angry?' } } }),
    });
    expect(systemone.status).toBe(200);
    expect(server.upstream!.hits).toEqual([]);
    expect(engineHeaders()).not.toContain(APP_KEY);
    expect(server.logs.join('\n')).not.toContain(APP_KEY);
    // The same client's chat request is the upstream's, key and all: the fake would have seen it.
    await server.client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(server.upstream!.hits.map((hit) => [hit.url, hit.headers.authorization])).toEqual([
      ['/v1/chat/completions', `Bearer ${APP_KEY}`],
    ]);
  });

  it('withholds nothing for [router] min_confidence: only the request (or an alias) asks for abstention', async () => {
    engine.noulOf = { q0: 0.55 };
    const open = await decide(server, {});
    expect(open.data.answers).toEqual([{ type: 'predicate', name: 'duplicate', probability: 0.55 }]);
    expect(open.response.headers.get('x-system1-abstained')).toBeNull();
    const asked = await server
      .client()
      .decisions.create(
        { model: 'system1', input: 'x', questions: [PREDICATE] },
        { headers: { 'x-system1-min-confidence': '0.5' } },
      );
    expect(asked.answers).toEqual([{ type: 'refusal', name: 'duplicate' }]);
  });

  it('logs the request as its other requests, with its id, and the API line beside it', async () => {
    const { response } = await decide(server, {});
    const id = response.headers.get('x-system1-request-id')!;
    expect(id).toMatch(/^s1r_/);
    expect(server.logs.some((line) => line.includes(`${id} POST /v1/decisions -> 200`))).toBe(true);
    expect(server.logs.some((line) => line.includes(`[${id}] /v1/decisions: 1 question(s)`))).toBe(true);
  });

  it('refuses a request without the router token (AuthenticationError; System One shape on /v1/systemone), asking no engine', async () => {
    const before = engine.requests.length + laya.requests.length;
    const missing = await failure(decide(server, {}, ''));
    expect(missing).toBeInstanceOf(AuthenticationError);
    expect(missing.message).toContain('x-system1-token');
    const systemone = await send(server.port, {
      path: '/v1/systemone',
      headers: { authorization: `Bearer ${APP_KEY}` },
      body: '{}',
    });
    expect(systemone.status).toBe(401);
    expect(JSON.parse(systemone.text)).toEqual({
      error: { code: 401, message: expect.stringContaining('x-system1-token'), type: 'authentication_error' },
    });
    expect(engine.requests.length + laya.requests.length).toBe(before);
    expect(server.upstream!.hits).toEqual([]);
  });

  it("answers other methods 405 with Allow: POST, in the wire's envelope, relaying nothing", async () => {
    const get = await send(server.port, { method: 'GET', path: '/v1/decisions', headers: server.access() });
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
    expect(JSON.parse(get.text)).toEqual({
      error: {
        message: '/v1/decisions takes POST only',
        type: 'invalid_request_error',
        param: null,
        code: 'method_not_allowed',
      },
    });
    const put = await send(server.port, { method: 'PUT', path: '/v1/systemone', headers: server.access(), body: '{}' });
    expect([put.status, JSON.parse(put.text).error.code]).toEqual([405, 405]);
    expect(server.upstream!.hits).toEqual([]);
  });

  it('refuses a request that already passed through this router (508), as for its other paths', async () => {
    await server.client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const via = server.upstream!.hits.at(-1)!.headers.via as string;
    const looped = await send(server.port, {
      path: '/v1/decisions',
      headers: { ...server.access(), via },
      body: JSON.stringify({ model: 'system1', input: 'x', questions: [PREDICATE] }),
    });
    expect(looped.status).toBe(508);
    expect(JSON.parse(looped.text).error).toMatchObject({ type: 'server_error', code: 'loop_detected' });
  });
});

describe("serve-openai's models: [gateway] caller_models (it has no callers of its own)", () => {
  let server: DecisionsServer;
  beforeAll(async () => {
    server = await startDecisionsServer('serve-openai', { toml: config(['caller_models = []']), env: ENV });
  });
  afterAll(() => server?.stop());

  it('answers the chain and refuses a model outside the list as unknown (404 model_not_found)', async () => {
    expect((await decide(server, {})).data.answers).toHaveLength(1);
    const before = typesafe.requests.length;
    const refused = await failure(decide(server, { model: 'typesafe/jev-1.14.0' }));
    expect(refused).toBeInstanceOf(NotFoundError);
    expect(refused.code).toBe('model_not_found');
    expect(typesafe.requests.length).toBe(before);
  });
});

describe("the router's decisions routes, over a stand-in API", () => {
  const harness = RouterHarness.use();

  it("hands the API the request's headers without the app's key or the router token", async () => {
    const calls: WireCall[] = [];
    const api = {
      answer: (_wire: DecisionWire, _body: unknown, call: WireCall) => {
        calls.push(call);
        return Promise.resolve({ status: 200, headers: {}, body: { answers: [] } });
      },
    };
    const router = await harness.start({ token: ROUTER_TOKEN }, undefined, api);
    const answer = await send(router.port, {
      path: '/v1/decisions',
      headers: {
        authorization: `Bearer ${APP_KEY}`,
        'x-system1-token': ROUTER_TOKEN,
        cookie: 'session=s3cret',
        'x-system1-min-confidence': '0.7',
      },
      body: '{}',
    });
    expect(answer.status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0].listening).toEqual({ host: '127.0.0.1', port: router.port });
    expect(calls[0].headers['x-system1-min-confidence']).toBe('0.7');
    const handed = JSON.stringify(calls[0].headers);
    for (const secret of [APP_KEY, ROUTER_TOKEN, 's3cret']) expect(handed).not.toContain(secret);
  });

  it.each(['/v1/decisions', '/v1/systemone'])(
    'answers %s 404 itself when started without the API, never relaying it upstream',
    async (path) => {
      const router = await harness.start();
      const answer = await send(router.port, { path, headers: { authorization: `Bearer ${APP_KEY}` }, body: '{}' });
      expect(answer.status).toBe(404);
      expect(harness.upstream.hits).toEqual([]);
    },
  );
});
