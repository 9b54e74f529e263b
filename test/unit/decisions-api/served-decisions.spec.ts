/**
 * The Decisions API served by serve-http and by serve-openai (issue 41), driven by the official `openai`
 * client against each server started in this process, its engines faked on loopback: what a client of
 * `/v1/decisions` sees for each question type, names, boolean values, 400 questions, refusals, images,
 * abstention, fallback, calibration and every error, each in OpenAI's envelope; and serve-http's callers'
 * policies. What only the router does is in router-decisions.spec.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import type { DecisionCreateParams } from 'openai/resources/decisions';
import { LayaFake } from '../../fakes/laya.fake';
import { TypedSystemOneFake } from '../../fakes/typed-systemone.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { DECISIONS_SERVERS, type DecisionsServer, startDecisionsServer, failure } from '../../helpers/decisions-server';
import { send } from '../../helpers/router-harness';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const TOKENS = {
  SYSTEM1_HTTP_TOKEN: 'tok-default-51',
  SYSTEM1_HTTP_TOKEN_ALICE: 'tok-alice-52',
  SYSTEM1_HTTP_TOKEN_BOB: 'tok-bob-53',
  SYSTEM1_HTTP_TOKEN_CAROL: 'tok-carol-54',
  SYSTEM1_ROUTER_TOKEN: 'tok-router-56',
};
const TEAM_QUESTION = 'Which team should handle this?';

const engine = new TypedSystemOneFake();
const laya = new LayaFake();
const typesafe = new TypeSafeFake({ apiKey: 'sk-typesafe-test-55' });
let installDir: string;

function config(): string {
  return [
    '[gateway]',
    'provider = "systemone"',
    'fallback = ["laya"]',
    'cooldown_s = 0',
    '[providers.systemone]',
    `endpoint = "${engine.url.origin}"`,
    'model = "d1-3B"',
    '[providers.laya]',
    `endpoint = "${laya.url.origin}"`,
    '[providers.typesafe]',
    `endpoint = "${typesafe.url.origin}"`,
    'model = "jev-1.14.0"',
    '[decisions.models.triage]',
    'chain = ["laya/typed-decisions"]',
    'min_confidence = 0.5',
    '[http]',
    'caller_models = ["*"]',
    'max_body_bytes = 300000',
    '[http.callers.alice]',
    'caller_models = []',
    '[http.callers.bob]',
    'rate_per_minute = 1',
    'burst = 1',
    '[http.callers.carol]',
    'tools = ["system1_health"]',
    // The router's own threshold, for its chat routes only: it must not withhold a decision's answer.
    '[router]',
    'min_confidence = 0.99',
  ].join('\n');
}

beforeAll(async () => {
  await Promise.all([engine.start(), laya.start(), typesafe.start()]);
  installDir = mkdtempSync(path.join(tmpdir(), 'served-decisions-'));
  // A fit for the team question on this engine: T = 4 flattens its 0.97 answers.
  writeFileSync(
    path.join(installDir, 'calibration.json'),
    JSON.stringify({
      version: 1,
      fits: [
        {
          provider: 'systemone',
          model: 'd1-3B',
          question: TEAM_QUESTION,
          temperature: 4,
          n: 50,
          at_bound: false,
          source: 'test',
        },
      ],
    }),
  );
});

afterAll(async () => {
  await Promise.all([engine.stop(), laya.stop(), typesafe.stop()]);
  rmSync(installDir, { recursive: true, force: true });
});

afterEach(() => {
  engine.fault = 'none';
  laya.answerChoice = undefined;
});

/** Asks `server` through its client; `token`: another than the server's own. */
const asker =
  (server: () => DecisionsServer) =>
  (body: Partial<DecisionCreateParams>, headers: Record<string, string> = {}, token?: string) =>
    server()
      .client(token)
      .decisions.create(
        { model: 'system1', input: 'I was charged twice last week.', questions: [], ...body } as DecisionCreateParams,
        { headers },
      )
      .withResponse();

describe.each(DECISIONS_SERVERS)('POST /v1/decisions on %s', (kind) => {
  let server: DecisionsServer;
  const ask = asker(() => server);

  beforeAll(async () => {
    server = await startDecisionsServer(
      kind,
      {
        toml: config(),
        env: { ...TOKENS, SYSTEM1_TYPESAFE_API_KEY: 'sk-typesafe-test-55', SYSTEM1_INSTALL_DIR: installDir },
      },
      { maxBodyBytes: 300_000 },
    );
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('through the openai client', () => {
    it('answers each question type in order, with exactly the API keys, names kept or null, booleans kept as booleans', async () => {
      engine.pickOption = { q1: 'false', q2: 'support' };
      engine.noulOf = { q0: 0.9 };
      engine.levelOf = { q3: 2 };
      const { data, response } = await ask({
        questions: [
          { type: 'predicate', instructions: 'Is this a duplicate charge?', name: 'duplicate' },
          {
            type: 'choice',
            instructions: 'Was it refunded?',
            choices: [{ value: true, description: 'a refund was made' }, { value: false }],
          },
          {
            type: 'choice',
            instructions: TEAM_QUESTION,
            name: 'team',
            choices: [{ value: 'billing' }, { value: 'support' }],
          },
          {
            type: 'score',
            instructions: 'How urgent?',
            name: 'urgency',
            levels: [{ label: 'low' }, { label: 'medium' }, { label: 'high', description: 'today' }],
          },
        ],
      });
      expect(Object.keys(data).sort()).toEqual(['answers', 'model', 'usage']);
      expect(data.model).toBe('systemone/d1-3B');
      const [duplicate, refunded, team, urgency] = data.answers;
      expect(duplicate).toEqual({ type: 'predicate', name: 'duplicate', probability: 0.9 });
      expect(Object.keys(refunded).sort()).toEqual(['choice', 'confidence', 'name', 'probabilities', 'type']);
      expect(refunded).toMatchObject({ type: 'choice', name: null, choice: false });
      expect((refunded as { probabilities: unknown[] }).probabilities).toEqual([
        { value: true, probability: expect.any(Number) },
        { value: false, probability: 0.97 },
      ]);
      expect(team).toMatchObject({ type: 'choice', name: 'team', choice: 'support' });
      expect(urgency).toMatchObject({
        type: 'score',
        name: 'urgency',
        score: expect.closeTo(1.925, 3),
        confidence: 0.95,
      });
      expect((urgency as { probabilities: unknown[] }).probabilities).toEqual([
        { value: 0, label: 'low', probability: 0.025 },
        { value: 1, label: 'medium', probability: 0.025 },
        { value: 2, label: 'high', probability: 0.95 },
      ]);
      expect(data.usage).toEqual({
        input_tokens: expect.any(Number),
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 0,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: data.usage.input_tokens,
      });
      expect(response.headers.get('x-system1-engine')).toBe('systemone/d1-3B');
      expect(response.headers.get('x-system1-request-id')).toMatch(/\S/);
      expect(response.headers.get('x-system1-abstained')).toBeNull();
      // The engine was asked the values as text, and the scores' levels with their descriptions.
      const sent = engine.requests.at(-1)!.body as { questions: Record<string, { criteria: unknown }> };
      expect(sent.questions.q1.criteria).toEqual({ true: 'a refund was made', false: null });
      expect(sent.questions.q3.criteria).toEqual(['low', 'medium', 'high: today']);
      engine.pickOption = {};
      engine.noulOf = {};
      engine.levelOf = {};
    });

    it('answers 400 questions through an engine that takes 64 at a time: 7 requests, the answers in question order', async () => {
      const before = laya.requests.length;
      // Each question's P(yes) tells it apart: 0.05, 0.15, ... by its index.
      laya.answerChoice = (question) => {
        const p = (Number(question.id.slice(1)) % 10) / 10 + 0.05;
        return { yes: p, no: Number((1 - p).toFixed(4)) };
      };
      const questions = Array.from({ length: 400 }, (_, i) => ({
        type: 'predicate' as const,
        instructions: `Does clause ${i} apply?`,
        name: `clause-${i}`,
      }));
      const { data, response } = await ask({ model: 'laya', questions });
      expect(laya.requests.length - before).toBe(7);
      expect(data.answers).toHaveLength(400);
      data.answers.forEach((answer, i) =>
        expect(answer).toEqual({
          type: 'predicate',
          name: `clause-${i}`,
          probability: expect.closeTo((i % 10) / 10 + 0.05, 4),
        }),
      );
      expect(response.headers.get('x-system1-engine')).toBe('laya/typed-decisions');
    });

    it('answers a question the engine failed alone as a refusal, the others kept', async () => {
      engine.answersById = { q1: { type: 'choice', choice: 'nonsense', probabilities: { nonsense: 1 } } };
      const { data, response } = await ask({
        questions: [
          { type: 'predicate', instructions: 'Is it a duplicate?', name: 'duplicate' },
          { type: 'choice', instructions: 'Which?', choices: [{ value: 'a' }, { value: 'b' }] },
        ],
      });
      engine.answersById = {};
      expect(data.answers[0]).toMatchObject({ type: 'predicate', name: 'duplicate' });
      expect(data.answers[1]).toEqual({ type: 'refusal', name: null });
      expect(response.headers.get('x-system1-abstained')).toBeNull();
    });

    it('withholds answers below x-system1-min-confidence as refusals, listed by name or #index', async () => {
      engine.noulOf = { q0: 0.98, q1: 0.6, q2: 0.55 };
      const { data, response } = await ask(
        {
          questions: [
            { type: 'predicate', instructions: 'Sure?', name: 'sure' },
            { type: 'predicate', instructions: 'Unsure?', name: 'unsure, really' },
            { type: 'predicate', instructions: 'Unnamed?' },
          ],
        },
        { 'x-system1-min-confidence': '0.5' },
      );
      engine.noulOf = {};
      expect(data.answers).toEqual([
        { type: 'predicate', name: 'sure', probability: 0.98 },
        { type: 'refusal', name: 'unsure, really' },
        { type: 'refusal', name: null },
      ]);
      expect(response.headers.get('x-system1-abstained')).toBe('unsure%2C%20really,#2');
    });

    it('withholds nothing without the header, whatever [gateway] or [router] min_confidence says; an alias brings its own threshold', async () => {
      engine.noulOf = { q0: 0.55 };
      const open = await ask({ questions: [{ type: 'predicate', instructions: 'Unsure?', name: 'unsure' }] });
      engine.noulOf = {};
      expect(open.data.answers[0]).toEqual({ type: 'predicate', name: 'unsure', probability: 0.55 });
      // triage: laya with min_confidence 0.5; laya answers P(yes) 0.6 (confidence 0.2) and 0.9 (0.8).
      laya.answerChoice = (question) => (question.id === 'q0' ? { yes: 0.6, no: 0.4 } : { yes: 0.9, no: 0.1 });
      const triage = await ask({
        model: 'triage',
        questions: [
          { type: 'predicate', instructions: 'Weak?', name: 'weak' },
          { type: 'predicate', instructions: 'Strong?', name: 'strong' },
        ],
      });
      expect(triage.data.answers.map((answer) => answer.type)).toEqual(['refusal', 'predicate']);
      expect(triage.response.headers.get('x-system1-abstained')).toBe('weak');
      expect(triage.data.model).toBe('laya/typed-decisions');
    });

    it('falls back from a failing engine to the next one of the chain', async () => {
      engine.fault = 'status-500';
      const { data, response } = await ask({
        questions: [{ type: 'predicate', instructions: 'Duplicate?', name: 'd' }],
      });
      expect(response.headers.get('x-system1-engine')).toBe('laya/typed-decisions');
      expect(data.model).toBe('laya/typed-decisions');
      expect(data.answers[0]).toMatchObject({ type: 'predicate', name: 'd' });
    });

    it('calibrates with a fit: the confidence changes and x-system1-calibrated says so, partial beside a raw answer', async () => {
      const choice = {
        type: 'choice' as const,
        instructions: TEAM_QUESTION,
        choices: [{ value: 'billing' }, { value: 'support' }],
      };
      const fitted = await ask({ questions: [choice] });
      const team = fitted.data.answers[0] as { confidence: number; probabilities: { probability: number }[] };
      expect(team.confidence).toBeLessThan(0.9);
      expect(team.probabilities[0].probability).toBeCloseTo(team.confidence, 6);
      expect(fitted.response.headers.get('x-system1-calibrated')).toBe('true');
      const mixed = await ask({
        questions: [choice, { type: 'choice', instructions: 'Another?', choices: [{ value: 'a' }, { value: 'b' }] }],
      });
      expect((mixed.data.answers[1] as { confidence: number }).confidence).toBe(0.97);
      expect(mixed.response.headers.get('x-system1-calibrated')).toBe('partial');
    });

    it('sends a data URL image to an engine that takes images, and refuses an http URL naming its field', async () => {
      const { data } = await ask({
        model: 'typesafe/jev-1.14.0',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Is the button red?' },
              { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
            ],
          },
        ],
        questions: [{ type: 'predicate', instructions: 'Is it red?', name: 'red' }],
      });
      expect(data.answers[0]).toMatchObject({ type: 'predicate', name: 'red' });
      const sent = typesafe.requests.at(-1)!.body as { images: unknown; state: unknown };
      expect(sent.images).toEqual([{ mediaType: 'image/png', data: PIXEL }]);
      expect(JSON.stringify(sent.state)).toContain('[image 1]');

      const refused = await failure(
        ask({
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: 'x' },
                { type: 'input_image', image_url: 'https://example.com/a.png' },
              ],
            },
          ],
          questions: [{ type: 'predicate', instructions: 'Red?' }],
        }),
      );
      expect(refused).toBeInstanceOf(BadRequestError);
      expect(refused.param).toBe('input[0].content[1].image_url');
      expect(refused.message).toContain('never fetches');
    });

    it('renders tool calls and their outputs into the state as JSON', async () => {
      await ask({
        input: [
          { role: 'user', content: 'Refund order 7?' },
          { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"order":7}' },
          { type: 'function_call_output', call_id: 'c1', output: 'paid twice' },
        ],
        questions: [{ type: 'predicate', instructions: 'Refund?' }],
      });
      expect((engine.requests.at(-1)!.body as { state: unknown }).state).toEqual([
        { role: 'user', content: 'Refund order 7?' },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"order":7}' },
        { type: 'function_call_output', call_id: 'c1', output: 'paid twice' },
      ]);
    });
  });

  describe('refusals, each in OpenAI envelope and error class', () => {
    it('refuses a choice holding both true and "true", naming it (BadRequestError with param)', async () => {
      const error = await failure(
        ask({
          questions: [
            { type: 'predicate', instructions: 'ok?' },
            { type: 'choice', instructions: 'which?', choices: [{ value: true }, { value: 'true' }] },
          ],
        }),
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect([error.status, error.type, error.param]).toEqual([400, 'invalid_request_error', 'questions[1].choices']);
    });

    it.each([
      ['no questions', { questions: [] }, 'questions'],
      [
        '401 questions',
        { questions: Array.from({ length: 401 }, () => ({ type: 'predicate', instructions: 'x' })) },
        'questions',
      ],
      ['an unknown field', { temperature: 0 }, 'temperature'],
      ['an unknown question type', { questions: [{ type: 'rank', instructions: 'x' }] }, 'questions[0].type'],
      [
        'one choice',
        { questions: [{ type: 'choice', instructions: 'x', choices: [{ value: 'a' }] }] },
        'questions[0].choices',
      ],
      [
        'an orphan tool output',
        {
          input: [{ type: 'function_call_output', call_id: 'z', output: 'x' }],
          questions: [{ type: 'predicate', instructions: 'x' }],
        },
        'input[0].call_id',
      ],
    ])('refuses %s naming the field', async (_what, body, param) => {
      const error = await failure(ask(body as Partial<DecisionCreateParams>));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.param).toBe(param);
    });

    it('refuses a bad x-system1-min-confidence with 400', async () => {
      const error = await failure(
        ask({ questions: [{ type: 'predicate', instructions: 'x' }] }, { 'x-system1-min-confidence': '1.5' }),
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.message).toContain('x-system1-min-confidence');
    });

    it('answers an unknown model 404 model_not_found (NotFoundError)', async () => {
      const unknown = await failure(
        ask({ model: 'gpt-6-luna', questions: [{ type: 'predicate', instructions: 'x' }] }),
      );
      expect(unknown).toBeInstanceOf(NotFoundError);
      expect(unknown.code).toBe('model_not_found');
    });

    it('refuses a wrong token (AuthenticationError), asking no engine', async () => {
      const before = engine.requests.length;
      const refused = await failure(ask({ questions: [{ type: 'predicate', instructions: 'x' }] }, {}, 'not-a-token'));
      expect(refused).toBeInstanceOf(AuthenticationError);
      expect(engine.requests.length).toBe(before);
    });

    it('answers 503 when no engine could answer, and 413 over the body cap, in the envelope', async () => {
      engine.fault = 'status-503';
      const down = await failure(ask({ model: 'systemone', questions: [{ type: 'predicate', instructions: 'x' }] }));
      expect(down).toBeInstanceOf(InternalServerError);
      expect([down.status, down.type]).toEqual([503, 'server_error']);
      const big = await failure(
        ask({ input: 'x'.repeat(400_000), questions: [{ type: 'predicate', instructions: 'x' }] }),
      );
      expect(big.status).toBe(413);
      expect(big.type).toBe('invalid_request_error');
    });

    it("answers the guards' refusals in OpenAI's envelope", async () => {
      const answer = await send(server.port, {
        path: '/v1/decisions',
        headers: { ...server.access(), host: 'evil.example' },
        body: '{}',
      });
      expect(answer.status).toBe(403);
      const { error } = JSON.parse(answer.text) as { error: Record<string, unknown> };
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(error).toMatchObject({ message: expect.stringContaining('Host'), type: 'permission_error', param: null });
      const notJson = await send(server.port, { path: '/v1/decisions', headers: server.access(), body: '{' });
      expect([notJson.status, JSON.parse(notJson.text).error.type]).toEqual([400, 'invalid_request_error']);
    });

    it('logs each request with its id, never the safety identifier', async () => {
      const { response } = await ask({
        safety_identifier: 'user-4711-private',
        prompt_cache_key: 'k',
        prompt_cache_options: { mode: 'implicit', ttl: '30m' },
        questions: [{ type: 'predicate', instructions: 'x' }],
      });
      const id = response.headers.get('x-system1-request-id')!;
      expect(server.logs.some((line) => line.includes(id) && line.includes('/v1/decisions'))).toBe(true);
      expect(server.logs.join('\n')).not.toContain('user-4711-private');
      expect(JSON.stringify(engine.requests.at(-1)!.body)).not.toContain('user-4711-private');
    });
  });

  // serve-http's callers are strangers with tokens, each with its policy and rate; the router has none.
  if (kind === 'serve-http')
    describe("serve-http's callers", () => {
      it('answers a model outside the caller policy as an unknown one: 404 model_not_found', async () => {
        // alice may use the chain, not typesafe; the default caller may.
        const request = {
          model: 'typesafe/jev-1.14.0',
          questions: [{ type: 'predicate' as const, instructions: 'x' }],
        };
        const forbidden = await failure(ask(request, {}, TOKENS.SYSTEM1_HTTP_TOKEN_ALICE));
        expect(forbidden).toBeInstanceOf(NotFoundError);
        expect(forbidden.code).toBe('model_not_found');
        const before = typesafe.requests.length;
        expect(
          (await ask({ questions: request.questions }, {}, TOKENS.SYSTEM1_HTTP_TOKEN_ALICE)).data.answers,
        ).toHaveLength(1);
        expect(typesafe.requests.length).toBe(before);
      });

      it('refuses a caller without decisions (PermissionDeniedError), a caller over its rate (RateLimitError with Retry-After)', async () => {
        const questions = [{ type: 'predicate' as const, instructions: 'x' }];
        const denied = await failure(ask({ questions }, {}, TOKENS.SYSTEM1_HTTP_TOKEN_CAROL));
        expect(denied).toBeInstanceOf(PermissionDeniedError);
        expect(denied.message).toContain('/v1/decisions');
        await ask({ questions }, {}, TOKENS.SYSTEM1_HTTP_TOKEN_BOB);
        const limited = await failure(ask({ questions }, {}, TOKENS.SYSTEM1_HTTP_TOKEN_BOB));
        expect(limited).toBeInstanceOf(RateLimitError);
        expect(limited.headers?.get('retry-after')).toMatch(/^\d+$/);
      });
    });
});
