/**
 * A property over raw JSON-RPC lines written to ONE running server: whatever the id (a string, an integer,
 * something unusable, none), the params (null, arrays, scalars, extra members, "__proto__", "constructor",
 * "toString" at every level) and the method, every message with a usable id is answered exactly once, with
 * a result or a short one-line error; answers to anything else carry id null (or there is none); nothing
 * is left unanswered and stderr never holds a dump of schema errors. The generator's reach is asserted: at
 * least 20% of the messages had a usable id, were valid tool calls, and were malformed, and each fault kind
 * reached at least 2% of them.
 */
import fc from 'fast-check';
import { type Json, requireBuild, Sandbox } from './helpers/gateway';
import { exitOf, RawServer } from './helpers/raw-server';

beforeAll(requireBuild);

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'] as const;
const TOOLS = ['system1_decide', 'system1_health', 'system1_capabilities', 'system1_ask'];

/** Objects are built with Object.fromEntries, so a "__proto__" key is an own member and reaches the JSON. */
const obj = (entries: [string, unknown][]): Json => Object.fromEntries(entries);

const protoKey = fc.constantFrom(...PROTO_NAMES);
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 8 }),
  protoKey,
);
const { value: hostileJson } = fc.letrec<{ value: unknown; array: unknown[]; object: Json }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 3 }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.array(fc.tuple(fc.oneof(protoKey, fc.string({ maxLength: 6 })), tie('value')), { maxLength: 3 }).map(obj),
}));
/** Extra members, mostly with prototype names, holding JSON with prototype names at every level. */
const extras = fc.array(fc.tuple(fc.oneof(protoKey, fc.constant('extra')), hostileJson), {
  minLength: 1,
  maxLength: 2,
});

/** The id a message is sent with; made unique at send time, so shrinking and later runs never reuse one. */
type IdSpec =
  | { kind: 'string'; base: string }
  | { kind: 'int'; base: number }
  | { kind: 'unsafe' }
  | { kind: 'unusable'; value: unknown }
  | { kind: 'none' };
const usableIdSpec: fc.Arbitrary<IdSpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.oneof(fc.string({ maxLength: 10 }), protoKey).map((base): IdSpec => ({ kind: 'string', base })),
  },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
        fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
      )
      .map((base): IdSpec => ({ kind: 'int', base })),
  },
  // An integer past 2^53: usable (it is an integer), though not one the protocol takes.
  { weight: 1, arbitrary: fc.constant<IdSpec>({ kind: 'unsafe' }) },
);
const unusableIdSpec: fc.Arbitrary<IdSpec> = fc.oneof(
  fc
    .constantFrom<unknown>(true, false, null, 1.5, -0.25, 1e-7, {}, [], [1], { id: 1 })
    .map((value) => ({ kind: 'unusable' as const, value })),
  hostileJson
    .filter((value) => typeof value !== 'string' && !Number.isInteger(value))
    .map((value) => ({ kind: 'unusable' as const, value })),
);

type Fault = 'jsonrpc' | 'topExtra' | 'params' | 'meta' | 'name' | 'args' | 'id' | 'method';
interface Gen {
  id: IdSpec;
  method: unknown;
  /** undefined: no params member. */
  params: unknown;
  jsonrpc: unknown;
  top: [string, unknown][];
  faults: Fault[];
  /** A tools/call of a known tool with valid arguments and nothing else wrong or odd. */
  validCall: boolean;
}

const decideArgs = fc.record({
  question: fc.string({ minLength: 1, maxLength: 30 }).map((text) => `q ${text}?`),
  options: fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 2, maxLength: 4 }),
});
const validMeta = fc.oneof(
  fc.constant(undefined),
  fc.constant({}),
  fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()) }),
);
const withMeta = (params: Json, meta: unknown) => (meta === undefined ? params : { ...params, _meta: meta });

const validToolCall: fc.Arbitrary<Gen> = fc
  .tuple(
    usableIdSpec,
    fc.oneof(
      decideArgs.map((args) => ({ name: 'system1_decide', arguments: args as unknown })),
      fc.constant({ name: 'system1_health', arguments: {} as unknown }),
    ),
    validMeta,
  )
  .map(([id, params, meta]) => ({
    id,
    method: 'tools/call',
    params: withMeta(params, meta),
    jsonrpc: '2.0',
    top: [],
    faults: [],
    validCall: true,
  }));

/** Other well-formed requests and notifications: ping, tools/list, unknown methods, odd tool names and params members. */
const otherMessage: fc.Arbitrary<Gen> = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: usableIdSpec }, { weight: 1, arbitrary: fc.constant<IdSpec>({ kind: 'none' }) }),
    fc.oneof(
      fc.record({
        method: fc.constantFrom('ping', 'tools/list'),
        params: fc.oneof(fc.constant(undefined), fc.constant({}), fc.constant({ cursor: 'c' })),
      }),
      fc.record({
        method: fc.constantFrom('no/such/method', 'tools/unknown', '__proto__', 'constructor', 'toString'),
        params: fc.oneof(fc.constant(undefined), fc.constant({})),
      }),
      fc.record({
        method: fc.constant('tools/call'),
        params: fc.record({
          name: fc.constantFrom('no_such_tool', '__proto__', 'constructor', ...TOOLS),
          arguments: fc.oneof(decideArgs, fc.constant({})),
        }),
      }),
      fc.record({
        method: fc.constantFrom('notifications/initialized', 'notifications/whatever'),
        params: fc.constant(undefined),
      }),
    ),
    fc.option(extras, { nil: undefined }),
  )
  .map(([id, { method, params }, more]) => {
    const isNotification = method.startsWith('notifications/');
    const withExtras =
      more === undefined ? params : obj([...Object.entries((params as Json | undefined) ?? {}), ...more]);
    return {
      id: isNotification ? { kind: 'none' } : id,
      method,
      params: withExtras,
      jsonrpc: '2.0',
      top: [],
      faults: [],
      validCall: false,
    };
  });

/** A well-formed message with one to three faults; `pick` chooses each fault's variant. */
const malformed: fc.Arbitrary<Gen> = fc
  .tuple(
    fc.oneof(validToolCall, otherMessage),
    fc.uniqueArray(fc.constantFrom<Fault>('jsonrpc', 'topExtra', 'params', 'meta', 'name', 'args', 'id', 'method'), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.array(fc.nat(), { minLength: 7, maxLength: 7 }),
    hostileJson,
    extras,
    unusableIdSpec,
  )
  .map(([base, wanted, picks, junk, more, badId]) => {
    const gen: Gen = { ...base, faults: [], validCall: false };
    const pick = <T>(slot: number, variants: T[]): T => variants[picks[slot] % variants.length];
    const params = () => (isObject(gen.params) ? gen.params : {});
    for (const fault of wanted) {
      if ((fault === 'name' || fault === 'args') && gen.method !== 'tools/call') continue;
      if (fault === 'id' && gen.id.kind === 'none') continue;
      gen.faults.push(fault);
      if (fault === 'jsonrpc') gen.jsonrpc = pick(0, [undefined, '1.0', 2, null, '2.00']);
      if (fault === 'topExtra') gen.top = more;
      if (fault === 'id') gen.id = badId;
      if (fault === 'method') gen.method = pick(1, [undefined, 5, null, true, {}, ['ping']]);
      if (fault === 'params') gen.params = pick(2, [null, [], 'x', 5, true, [params()]]);
      if (fault === 'meta')
        gen.params = {
          ...params(),
          _meta: pick(3, [
            5,
            'x',
            null,
            [],
            { progressToken: {} },
            { progressToken: 1.5 },
            { 'io.modelcontextprotocol/related-task': 5 },
          ]),
        };
      if (fault === 'name') {
        const { name: _name, ...rest } = params();
        gen.params = pick(4, [rest, { ...rest, name: pick(5, [5, null, {}, ['system1_decide'], true]) }]);
      }
      if (fault === 'args') {
        const valid = params().arguments;
        gen.params = {
          ...params(),
          arguments: pick(6, [
            null,
            [],
            'x',
            5,
            true,
            junk,
            obj([...Object.entries(isObject(valid) ? valid : {}), ...more]),
          ]),
        };
      }
    }
    return gen;
  });

const message: fc.Arbitrary<Gen> = fc.oneof(
  { weight: 7, arbitrary: validToolCall },
  { weight: 5, arbitrary: otherMessage },
  { weight: 8, arbitrary: malformed },
);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const idKey = (id: unknown) => (typeof id === 'string' ? `s:${id}` : `n:${String(id)}`);

const FAULTS: Fault[] = ['jsonrpc', 'topExtra', 'params', 'meta', 'name', 'args', 'id', 'method'];
/**
 * The least share of all messages that must carry each fault kind and still have their answer checked (a
 * usable id; for `id`, one made unusable, whose answer is checked by the count of id-null replies). A run of
 * 2,179 messages had 6-7.5% for each kind, and 4-4.5% for `name` and `args`, which apply to tools/call alone.
 */
const LEAST_FAULT_SHARE = 0.02;

it(`answers every message with a usable id exactly once, over thousands of hostile lines to one server (each of the ${FAULTS.length} fault kinds in >= ${LEAST_FAULT_SHARE * 100}% of them)`, async () => {
  const sandbox = new Sandbox();
  const server = new RawServer(sandbox);
  try {
    await server.ready();
    const used = new Set<string>();
    let seq = 0;
    /** Expected answers by id key: whether a result (true) or an error (false) must come back, or either (null). */
    const expected = new Map<string, { line: string; result: boolean | null; validCall: boolean }>();
    const stats = { total: 0, usableId: 0, validCall: 0, malformed: 0, withoutUsableId: 0 };
    /** Per fault kind: the messages that carried it and whose answer (or, for `id`, its absence) was checked. */
    const reachedFault = Object.fromEntries(FAULTS.map((fault) => [fault, 0])) as Record<Fault, number>;
    let seen = 0; // stdout messages checked so far

    const assignId = (spec: IdSpec): unknown => {
      seq++;
      if (spec.kind === 'none') return undefined;
      if (spec.kind === 'unusable') return spec.value;
      // 2^60 + a multiple of 256: exact in a double, so the echoed id compares equal.
      let id: string | number = spec.kind === 'unsafe' ? 2 ** 60 + seq * 256 : spec.base;
      if (used.has(idKey(id)))
        id = spec.kind === 'string' ? `${spec.base}#${seq}` : (seq % 2 ? 1 : -1) * (2 ** 40 + seq);
      used.add(idKey(id));
      return id;
    };

    const expectation = (gen: Gen): boolean | null => {
      const envelope: Fault[] = ['jsonrpc', 'topExtra', 'params', 'method'];
      if (gen.id.kind === 'unsafe' || gen.faults.some((fault) => envelope.includes(fault))) return false;
      if (gen.faults.includes('meta') || gen.faults.includes('name')) return false;
      if (gen.method === 'ping' || gen.method === 'tools/list')
        return isObject(gen.params) && Object.hasOwn(gen.params, '__proto__') ? null : true;
      if (gen.method === 'tools/call') return TOOLS.includes((gen.params as Json).name as string) ? true : false;
      return false; // an unknown method
    };

    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 100, maxLength: 130 }), async (gens) => {
        const waitingFor: string[] = [];
        const lines: string[] = [];
        for (const gen of gens) {
          const id = assignId(gen.id);
          const entries: [string, unknown][] = [];
          if (gen.jsonrpc !== undefined) entries.push(['jsonrpc', gen.jsonrpc]);
          if (id !== undefined) entries.push(['id', id]);
          if (gen.method !== undefined) entries.push(['method', gen.method]);
          if (gen.params !== undefined) entries.push(['params', gen.params]);
          entries.push(...gen.top);
          const line = JSON.stringify(obj(entries));
          lines.push(line);
          const usable = typeof id === 'string' || Number.isInteger(id);
          stats.total++;
          if (usable) stats.usableId++;
          else stats.withoutUsableId++;
          // An integer id past 2^53 is answered, but only to say it is not one the protocol takes.
          const validCall = gen.validCall && gen.id.kind !== 'unsafe';
          if (validCall) stats.validCall++;
          if (gen.faults.length > 0 || gen.id.kind === 'unsafe') stats.malformed++;
          for (const fault of gen.faults) if (usable || fault === 'id') reachedFault[fault]++;
          if (usable) {
            expected.set(idKey(id), { line, result: expectation(gen), validCall });
            waitingFor.push(idKey(id));
          }
        }
        server.proc.stdin.write(lines.map((line) => `${line}\n`).join(''));
        const answered = () => new Set(server.messages().map((reply) => idKey(reply.id)));
        await server.until(() => {
          const keys = answered();
          return waitingFor.every((key) => keys.has(key));
        }, `answers to ${waitingFor.length} ids`);
        // Everything written so far: the right shape, and only under ids that were sent.
        for (const reply of server.messages().slice(seen)) {
          expect(reply.jsonrpc).toBe('2.0');
          if (reply.error) expect(reply.error.message).toMatch(/^[^\n]{1,300}$/);
          if (reply.id === null) {
            expect(reply.error?.code).toBe(-32600);
            continue;
          }
          const want = expected.get(idKey(reply.id));
          if (!want) throw new Error(`an answer to an id never sent as usable: ${JSON.stringify(reply).slice(0, 300)}`);
          if (want.result !== null)
            expect({ line: want.line, kind: reply.error ? 'error' : 'result' }).toEqual({
              line: want.line,
              kind: want.result ? 'result' : 'error',
            });
          if (want.validCall)
            expect({ line: want.line, status: reply.result?.structuredContent?.status }).toEqual({
              line: want.line,
              status: expect.stringMatching(/^(decided|abstained|ok|degraded)$/),
            });
        }
        seen = server.messages().length;
      }),
      { numRuns: 20, endOnFailure: true },
    );

    // Close stdin: everything in flight is written, then the server exits.
    server.proc.stdin.end();
    expect(await exitOf(server)).toEqual({ code: 0, signal: null });

    const counts = new Map<string, number>();
    let nullAnswers = 0;
    for (const reply of server.messages()) {
      if (reply.id === null) nullAnswers++;
      else counts.set(idKey(reply.id), (counts.get(idKey(reply.id)) ?? 0) + 1);
    }
    const wrong = [...expected.keys()]
      .filter((key) => counts.get(key) !== 1)
      .map((key) => `${key}: ${counts.get(key) ?? 0} answers to ${expected.get(key)!.line}`);
    expect(wrong).toEqual([]);
    expect([...counts.keys()].filter((key) => !expected.has(key))).toEqual([]);
    expect(nullAnswers).toBeLessThanOrEqual(stats.withoutUsableId);

    const stderr = server.stderr();
    expect(stderr).not.toMatch(/"code": "invalid_|"expected": "|invalid_union|unrecognized_keys|reading 'prototype'/);
    expect(stderr).not.toMatch(/Unhandled|uncaught/i);

    // The generator reaches every branch: stated, not assumed.
    expect(stats.total).toBeGreaterThanOrEqual(2000);
    const share = (count: number) => count / stats.total;
    expect({
      usableId: share(stats.usableId) >= 0.2,
      validCall: share(stats.validCall) >= 0.2,
      malformed: share(stats.malformed) >= 0.2,
    }).toEqual({ usableId: true, validCall: true, malformed: true });
    expect(stats.withoutUsableId).toBeGreaterThan(0);
    const underReached = FAULTS.filter((fault) => share(reachedFault[fault]) < LEAST_FAULT_SHARE);
    expect(underReached.map((fault) => `${fault}: ${reachedFault[fault]} of ${stats.total}`)).toEqual([]);
  } finally {
    server.kill();
    sandbox.dispose();
  }
}, 120_000);
