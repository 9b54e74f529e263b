import { type TestingModule } from '@nestjs/testing';
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { jsonDepthExceeds } from '../../src/common/json-depth';
import { CONTEXT_MAX_DEPTH } from '../../src/mcp/dto/json-limits.decorator';
import { DecideService } from '../../src/mcp/decide/decide.service';
import { buildSchemas } from '../../src/mcp/schema/schema-export';
import { type ErrorReply, guardStdin } from '../../src/mcp/stdin-guard';
import { DECLARED_TOOLS } from '../../src/mcp/tool-list';
import { gatewayApp } from '../helpers/gateway-app';

const validResponse = new Ajv2020({ strict: false }).compile(buildSchemas(DECLARED_TOOLS)['response.json']);

/** Field values a hostile or broken client might send, mixed into otherwise plausible requests. */
const hostileValue = fc.oneof(
  fc.anything({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('\ud800', 'a\udc00b', 'NaN', 'Infinity', '-0', '1e999', '', ' ', '__proto__', 'constructor'),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.array(fc.string(), { maxLength: 300 }),
);
const FIELDS = [
  'question',
  'options',
  'context',
  'min_confidence',
  'request_id',
  'schema_version',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
];
/** Requests a client that follows the schema may send: every one must be answered (decided or abstained), never refused. */
const wellFormedRequest = fc.record(
  {
    question: fc.string({ minLength: 1, maxLength: 40 }).filter((q) => /\S/.test(q)),
    options: fc.uniqueArray(
      fc.string({ minLength: 1, maxLength: 20 }).filter((o) => /\S/.test(o)),
      { minLength: 2, maxLength: 6 },
    ),
    context: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    // Half of them above the mock's confidence, so that abstaining is reached in bulk too.
    min_confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.95, max: 1, noNaN: true })),
    request_id: fc.string({ minLength: 1, maxLength: 40 }),
  },
  { requiredKeys: ['question'] },
);
const hostileRequest = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom(...FIELDS), hostileValue, { maxKeys: 6 }),
  fc.record(
    { question: fc.string({ minLength: 1, maxLength: 40 }), options: hostileValue, context: hostileValue },
    { requiredKeys: ['question'] },
  ),
);
/** Half hostile, half well-formed: so both the refusal and the answering paths are reached in bulk. */
const anyRequest = fc.oneof(
  hostileRequest.map((request) => ({ wellFormed: false, request })),
  wellFormedRequest.map((request) => ({ wellFormed: true, request })),
);
/** The mock's confidence in its first option (its default): the request abstains above it. */
const MOCK_CONFIDENCE = 0.9;
const RUNS = 400;
/** The least share of runs that must reach each branch; about 48%, 26% and 25% reach them today. */
const LEAST_SHARE = { error: 0.3, decided: 0.15, abstained: 0.15 };

describe('hostile system1_decide arguments', () => {
  let app: TestingModule;
  let gateway: DecideService;
  beforeAll(async () => {
    app = await gatewayApp({ toml: '[gateway]\nprovider = "mock"' });
    gateway = app.get(DecideService);
  });
  afterAll(() => app.close());

  it(`always get a well-formed answer, never pollute a prototype, and reach every branch (of ${RUNS} runs: refused >= ${LEAST_SHARE.error * 100}%, decided >= ${LEAST_SHARE.decided * 100}%, abstained >= ${LEAST_SHARE.abstained * 100}%)`, async () => {
    const reached = { error: 0, decided: 0, abstained: 0 };
    await fc.assert(
      fc.asyncProperty(anyRequest, async ({ wellFormed, request }) => {
        const reply = await gateway.decide(request);
        expect(validResponse(reply) ? [] : validResponse.errors).toEqual([]);
        expect(({} as Record<string, unknown>).question).toBeUndefined();
        expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
        const asked = request as { options?: string[]; min_confidence?: number };
        switch (reply.status) {
          case 'error':
            expect(wellFormed).toBe(false);
            expect(reply.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/\S/) });
            expect(reply.decision).toBeNull();
            break;
          case 'decided':
            expect(asked.options ?? ['yes', 'no']).toContain(reply.decision);
            expect(reply.confidence).toBeGreaterThanOrEqual(asked.min_confidence ?? 0);
            expect(reply.error).toBeNull();
            break;
          case 'abstained':
            expect(asked.min_confidence).toBeGreaterThan(MOCK_CONFIDENCE);
            expect(reply.decision).toBeNull();
            break;
          default:
            throw new Error(`status outside the contract: ${String(reply.status)}`);
        }
        reached[reply.status]++;
      }),
      { numRuns: RUNS },
    );
    const underReached = (Object.keys(reached) as (keyof typeof reached)[]).filter(
      (branch) => reached[branch] / RUNS < LEAST_SHARE[branch],
    );
    expect(underReached.map((branch) => `${branch}: ${reached[branch]} of ${RUNS}`)).toEqual([]);
  });

  it.each([
    [
      'a context 20,000 levels deep',
      JSON.parse(`{"question":"q","context":${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}}`),
      /context must nest at most 32 levels/,
    ],
    ['a context over 64 KiB', { question: 'q', context: { blob: 'x'.repeat(70 * 1024) } }, /at most 65536 bytes/],
    [
      '10,000 options',
      { question: 'q', options: Array.from({ length: 10_000 }, (_, i) => `o${i}`) },
      /options must contain no more than 256 elements/,
    ],
    [
      'a pollution attempt',
      JSON.parse('{"question":"q","__proto__":{"polluted":true}}'),
      /"__proto__" is not a field of the system1_decide arguments/,
    ],
  ])('refuses %s with a clear invalid_request', async (_name, request, message) => {
    const reply = await gateway.decide(request);
    expect(reply).toMatchObject({
      status: 'error',
      error: { code: 'invalid_request', message: expect.stringMatching(message) },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('measures depth without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(jsonDepthExceeds(deep, CONTEXT_MAX_DEPTH)).toBe(true);
    expect(jsonDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
  });
});

describe('the stdin guard', () => {
  const run = async (chunks: (string | Buffer)[], maxLineBytes = 1024) => {
    const input = new PassThrough();
    const replies: ErrorReply[] = [];
    const output = guardStdin(input, (reply) => replies.push(reply), maxLineBytes);
    const forwarded: string[] = [];
    output.on('data', (message: unknown) => forwarded.push(`${JSON.stringify(message)}\n`));
    const ended = new Promise((resolve) => output.on('end', resolve));
    for (const chunk of chunks) input.write(chunk);
    input.end();
    await ended;
    return { replies, forwarded: forwarded.join('') };
  };

  it('passes well-formed messages through unchanged, whatever the chunking', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const { replies, forwarded } = await run([message.slice(0, 10), message.slice(10) + '\n' + message, '\n\n']);
    expect(replies).toEqual([]);
    expect(forwarded).toBe(`${message}\n${message}\n`);
  });

  it('answers what the SDK would ignore or die on, and keeps going', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big-1',
      method: 'tools/call',
      params: { blob: 'x'.repeat(5000) },
    });
    const ok = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const { replies, forwarded } = await run([
      '{not json\n',
      '[{"jsonrpc":"2.0","id":1}]\n',
      '42\n',
      big.slice(0, 3000),
      big.slice(3000) + '\n',
      ok + '\n',
    ]);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: the line is not valid JSON' } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'batches are not supported: send one message per line' },
      },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'a message must be a JSON object' } },
      {
        jsonrpc: '2.0',
        id: 'big-1',
        error: { code: -32600, message: 'message too large: lines are limited to 1024 bytes' },
      },
    ]);
    expect(forwarded).toBe(`${ok}\n`);
  });

  it('answers a last line without a newline when the stream ends', async () => {
    const { forwarded } = await run(['{"jsonrpc":"2.0","id":9,"method":"ping"}']);
    expect(forwarded).toBe('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
  });
});
