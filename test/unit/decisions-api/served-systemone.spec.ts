/**
 * `/v1/systemone` on serve-http and on serve-openai (issue 41): a System One client written as dsh-system1's
 * provider reads its answers (wire-contracts §1.3) and every one passes its checks; errors come in System One's
 * shape; an engine whose endpoint is this server itself (the address it is bound to) is refused, never asked.
 */
import { createServer } from 'node:net';
import { TypedSystemOneFake } from '../../fakes/typed-systemone.fake';
import { DECISIONS_SERVERS, type DecisionsServer, startDecisionsServer } from '../../helpers/decisions-server';

type Json = Record<string, any>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => value === undefined || (Number.isInteger(value) && (value as number) >= 0);

/**
 * dsh-system1's checks of a reply (src/providers/systemone.ts, wire-contracts §1.3): the problems of each
 * answer by question id, and of the envelope under `(reply)`.
 */
function dshProblems(body: unknown, questions: Json): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!isRecord(body) || !isRecord(body.answers)) return { '(reply)': 'no answers record' };
  if (body.model !== undefined && typeof body.model !== 'string') problems['(reply)'] = 'model is not a string';
  if (
    body.usage !== undefined &&
    !(isRecord(body.usage) && isCount(body.usage.input_tokens) && isCount(body.usage.output_tokens))
  )
    problems['(reply)'] = 'usage is not counts';
  for (const [id, answer] of Object.entries(body.answers)) {
    const question = questions[id];
    if (!question) problems[id] = 'answer to an unknown id';
    else if (!isRecord(answer) || answer.type !== question.type) problems[id] = 'wrong type';
    else if (answer.type === 'noul' && typeof answer.noul !== 'number') problems[id] = 'noul is not a number';
    else if (answer.type === 'choice' && (typeof answer.choice !== 'string' || !isRecord(answer.probabilities)))
      problems[id] = 'choice without choice or probabilities';
    else if (answer.type === 'score') {
      const legend = Object.fromEntries(question.criteria.map((level: unknown, i: number) => [String(i), level]));
      if (typeof answer.score !== 'number' || !isRecord(answer.probabilities)) problems[id] = 'score without score';
      else if (answer.legend !== undefined && JSON.stringify(answer.legend) !== JSON.stringify(legend))
        problems[id] = 'legend differs from the criteria';
      else if (!Object.keys(legend).every((key) => typeof answer.probabilities[key] === 'number'))
        problems[id] = 'probabilities miss an index';
    }
    if (answer.confidence !== undefined && typeof answer.confidence !== 'number')
      problems[id] = 'confidence not a number';
  }
  return problems;
}

const QUESTIONS = {
  route: {
    type: 'choice',
    instructions: 'Which team?',
    criteria: { billing: 'payments', shipping: null, technical: null },
  },
  urgency: { type: 'score', instructions: 'How urgent?', criteria: ['can wait', 'this week', 'today', 'right now'] },
  angry: { type: 'noul', instructions: 'Is the customer angry?' },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const engine = new TypedSystemOneFake();
beforeAll(() => engine.start());
afterAll(() => engine.stop());

describe.each(DECISIONS_SERVERS)('POST /v1/systemone on %s', (kind) => {
  let server: DecisionsServer;

  beforeAll(async () => {
    const port = await freePort();
    server = await startDecisionsServer(
      kind,
      {
        toml: [
          '[gateway]',
          'provider = "systemone"',
          '[providers.systemone]',
          `endpoint = "${engine.url.origin}"`,
          '[providers.itself]',
          'type = "systemone"',
          `endpoint = "http://localhost:${port}"`,
          '[decisions.models.loop]',
          'chain = ["itself"]',
        ].join('\n'),
        env: { SYSTEM1_HTTP_TOKEN: 'tok-s1-61', SYSTEM1_ROUTER_TOKEN: 'tok-s1-62' },
      },
      { port },
    );
  });

  afterAll(async () => {
    await server?.stop();
  });

  const post = async (body: unknown, token?: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.origin}/v1/systemone`, {
      method: 'POST',
      redirect: 'error',
      headers: { 'content-type': 'application/json', ...server.access(token), ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
  };

  it('answers a System One request that a dsh-system1 client reads without a problem, in question order', async () => {
    engine.pickOption = { route: 'shipping' };
    const reply = await post({ state: { ticket: 'Charged twice' }, questions: QUESTIONS });
    expect(reply.status).toBe(200);
    expect(dshProblems(reply.body, QUESTIONS)).toEqual({});
    expect(Object.keys(reply.body.answers)).toEqual(['route', 'urgency', 'angry']);
    expect(reply.body.answers.route).toMatchObject({ type: 'choice', choice: 'shipping' });
    expect(Object.keys(reply.body.answers.route.probabilities)).toEqual(['billing', 'shipping', 'technical']);
    expect(reply.body.answers.urgency.legend).toEqual({ 0: 'can wait', 1: 'this week', 2: 'today', 3: 'right now' });
    expect(reply.body.model).toMatch(/^systemone/);
    expect(reply.headers.get('x-system1-engine')).toMatch(/^systemone/);
    // model absent = system1: the chain's engine was asked.
    expect(engine.requests.at(-1)!.body).toMatchObject({ state: { ticket: 'Charged twice' } });
  });

  it('leaves a withheld answer out (listed in x-system1-abstained), and its client still finds nothing wrong', async () => {
    engine.noulOf = { angry: 0.55 };
    const reply = await post({ state: 'x', questions: QUESTIONS }, undefined, { 'x-system1-min-confidence': '0.5' });
    engine.noulOf = {};
    const body = reply.body;
    expect(Object.keys(body.answers)).toEqual(['route', 'urgency']);
    expect(reply.headers.get('x-system1-abstained')).toBe('angry');
    expect(dshProblems(body, QUESTIONS)).toEqual({});
  });

  it("refuses bad input, an unknown model and a missing token in System One's error shape", async () => {
    const bad = await post({
      state: 'x',
      questions: { q: { type: 'choice', instructions: 'x', criteria: { a: null } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: { code: 400, message: expect.stringContaining('questions.q.criteria'), type: 'invalid_request_error' },
    });
    const unknown = await post({ model: 'jev-1.14.0', state: 'x', questions: QUESTIONS });
    expect([unknown.status, unknown.body.error.type]).toEqual([404, 'not_found_error']);
    const anonymous = await post({ state: 'x', questions: QUESTIONS }, 'wrong');
    expect([anonymous.status, anonymous.body.error.type]).toEqual([401, 'authentication_error']);
  });

  it('refuses a model whose engine is this server itself, without asking it', async () => {
    const before = server.logs.length;
    const reply = await post({ model: 'loop', state: 'x', questions: QUESTIONS });
    expect(reply.status).toBe(508);
    expect(reply.body.error.message).toContain('this server');
    // Only this request's own line: no second request reached the server.
    expect(server.logs.slice(before).filter((line) => line.includes('/v1/systemone'))).toHaveLength(1);
  });
});
