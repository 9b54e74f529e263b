import fc from 'fast-check';
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { RESERVED_IDS } from '../../../src/decisions/dto/json-value.decorators';
import { QUESTION_ERROR_CODES, type DecideResult } from '../../../src/library/library.types';
import { LibrarySandbox, PIXEL } from './library-setup';

/**
 * Property tests of `decide` against hostile callers and hostile engines. Generators that only produce junk
 * test nothing past the first check (every call threw there), so each property builds mostly well-formed
 * input, then breaks it in one known way, counts which branch every run took, and asserts after the run
 * that each branch was taken often enough to mean something.
 */

/** Names of Object.prototype members: planted as own keys at every level, where a naive `obj[key]` goes wrong. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;
/** The ones a question id or candidate key may use (`__proto__`, `constructor`, `prototype` are reserved). */
const USABLE_PROTOTYPE_NAMES = PROTOTYPE_NAMES.filter((name) => !RESERVED_IDS.has(name));
/** What a polluting write would leave on Object.prototype. */
const POISON = { polluted: true, type: 'choice' };

/** Own properties, `__proto__` included (assignment would set the prototype instead of adding a key). */
function withOwn<T extends object>(target: T, entries: readonly (readonly [string, unknown])[]): T {
  for (const [key, value] of entries)
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

const prototypeKeys = fc.subarray([...PROTOTYPE_NAMES]);
const usableKey = (key: string) => key.trim() !== '' && !RESERVED_IDS.has(key);

const hostileValue = fc.oneof(
  fc.anything({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\ud800', 'NaN', '', ' ', ...PROTOTYPE_NAMES, 'prototype'),
  fc.constantFrom(Number.NaN, Infinity, -0, 1e308),
  fc.constant(POISON),
);

/** JSON with every prototype name as an own key at each level of objects. */
const prototypeJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; object: object }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    tie('object'),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
  object: fc
    .tuple(fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 3 }), prototypeKeys, tie('value'))
    .map(([base, names, value]) =>
      withOwn(
        { ...base },
        names.map((name) => [name, value] as const),
      ),
    ),
})).object;

/** Instructions and descriptions: non-empty text, or a non-empty object carrying prototype names, or a list. */
const described = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), prototypeKeys).map(([text, names]) =>
    withOwn(
      { text },
      names.map((name) => [name, text] as const),
    ),
  ),
  fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 3 }),
);

const idOrKey = fc.oneof(
  fc.constantFrom(...USABLE_PROTOTYPE_NAMES),
  fc.constantFrom('a', 'b', 'refund', '1'),
  fc.string({ minLength: 1, maxLength: 8 }).filter(usableKey),
);

const candidates = fc.uniqueArray(idOrKey, { minLength: 2, maxLength: 5 }).chain((keys) =>
  fc.tuple(...keys.map(() => fc.option(described, { nil: null }))).map((values) =>
    withOwn(
      {},
      keys.map((key, i) => [key, values[i]] as const),
    ),
  ),
);

// Box questions rarely: the mock takes no images, so a call with one is answered unsupported throughout.
const question = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ type: fc.constant('choice' as const), instructions: described, criteria: candidates }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        type: fc.constant('noul' as const),
        instructions: described,
        criteria: fc.record({ true: described, false: described }, { requiredKeys: [] }),
      },
      { requiredKeys: ['type', 'instructions'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('score' as const),
      instructions: described,
      criteria: fc.array(described, { minLength: 2, maxLength: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('box' as const), instructions: described }) },
);
type GeneratedQuestion = Record<string, unknown> & { type: string; criteria?: unknown };

const questions = fc.uniqueArray(idOrKey, { minLength: 1, maxLength: 4 }).chain((ids) =>
  fc.tuple(...ids.map(() => question)).map((asked) =>
    withOwn(
      {} as Record<string, GeneratedQuestion>,
      ids.map((id, i) => [id, asked[i]] as const),
    ),
  ),
);

/** A request the check must take: every part well formed, prototype names wherever an id, key or JSON may use them. */
const validRequest = fc
  .record(
    {
      state: fc.oneof(fc.string({ maxLength: 40 }), prototypeJson),
      questions,
      model: fc.constant({ provider: 'mock' }),
      timeoutMs: fc.integer({ min: 1000, max: 60_000 }),
      minConfidence: fc.double({ min: 0, max: 1, noNaN: true }),
      // Seldom true: the mock offers no long context, so such a call is answered unsupported throughout.
      longContext: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    },
    { requiredKeys: ['state', 'questions'] },
  )
  .map((request) =>
    Object.values(request.questions).some((asked) => asked.type === 'box')
      ? { ...request, images: [{ mediaType: 'image/png', data: PIXEL }] }
      : request,
  );
type ValidRequest = typeof validRequest extends fc.Arbitrary<infer R> ? R : never;

/**
 * One known way to break a valid request. `refused`: the check must throw with a message naming each of
 * `naming`; otherwise the request may be refused or answered (a hostile value can happen to be valid).
 */
interface Broken {
  request: unknown;
  refused?: { naming: string[] };
}
const firstId = (request: ValidRequest) => Object.keys(request.questions)[0];
const replaceQuestion = (request: ValidRequest, id: string, changed: object): ValidRequest => ({
  ...request,
  questions: withOwn({ ...request.questions }, [[id, changed]]),
});
const BREAKS: Record<string, (request: ValidRequest, name: string, value: unknown) => Broken> = {
  'a prototype name as a request field': (request, name, value) => ({
    request: withOwn({ ...request }, [[name, value]]),
    refused: { naming: [name] },
  }),
  'a prototype name as a question field': (request, name, value) => {
    const id = firstId(request);
    return {
      request: replaceQuestion(request, id, withOwn({ ...request.questions[id] }, [[name, value]])),
      refused: { naming: [`questions.${id}.${name}`] },
    };
  },
  'a reserved question id': (request, name) => {
    const reserved = name === '__proto__' ? '__proto__' : 'constructor';
    return {
      request: {
        ...request,
        questions: withOwn({ ...request.questions }, [
          [reserved, { type: 'noul', instructions: 'Is this id reserved?' }],
        ]),
      },
      refused: { naming: ['questions', reserved] },
    };
  },
  'a prototype name in the model': (request, name, value) => ({
    request: { ...request, model: withOwn({ provider: 'mock' }, [[name, value]]) },
    refused: { naming: [`model.${name}`] },
  }),
  'a prototype name in an image': (request, name, value) => ({
    request: { ...request, images: [withOwn({ mediaType: 'image/png', data: PIXEL }, [[name, value]])] },
    refused: { naming: ['images', name] },
  }),
  'a hostile state': (request, _name, value) => ({ request: { ...request, state: value } }),
  'hostile questions': (request, _name, value) => ({ request: { ...request, questions: value } }),
  'a hostile criteria': (request, _name, value) => {
    const id = firstId(request);
    return { request: replaceQuestion(request, id, { ...request.questions[id], criteria: value }) };
  },
  'a hostile type': (request, name, value) => {
    const id = firstId(request);
    return { request: replaceQuestion(request, id, { ...request.questions[id], type: value ?? name }) };
  },
  'hostile images': (request, _name, value) => ({ request: { ...request, images: value } }),
  'a hostile model': (request, _name, value) => ({ request: { ...request, model: value } }),
  'a hostile timeoutMs': (request, _name, value) => ({ request: { ...request, timeoutMs: value } }),
  'a hostile minConfidence': (request, _name, value) => ({ request: { ...request, minConfidence: value } }),
  'a hostile longContext': (request, _name, value) => ({ request: { ...request, longContext: value } }),
};

const VALID = 'a valid call';
const ANYTHING = 'any value as the call';
type Call = Broken & { valid?: true; kind: string };
const hostileCall = fc.oneof(
  { weight: 3, arbitrary: validRequest.map((request): Call => ({ request, valid: true, kind: VALID })) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(validRequest, fc.constantFrom(...Object.keys(BREAKS)), fc.constantFrom(...PROTOTYPE_NAMES), hostileValue)
      .map(([request, way, name, value]): Call => ({ ...BREAKS[way](request, name, value), kind: way })),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }).map((request): Call => ({ request, kind: ANYTHING })) },
);

/**
 * Which branch each run took, by the kind of input it played (a way of breaking the call, a kind of engine
 * answer, a kind of hostile provider): printed and asserted per kind after the property, so a generator of
 * one kind that stops reaching a branch fails the test even when the others still reach it.
 */
class BranchCounts {
  readonly counts: Record<string, Record<string, number>> = {};
  add(kind: string, branch: string): void {
    const of = (this.counts[kind] ??= {});
    of[branch] = (of[branch] ?? 0) + 1;
  }
  of(kind: string, branch: string): number {
    return this.counts[kind]?.[branch] ?? 0;
  }
  /** The share of `kind`'s counts among `among` (its branches of one level) that went to `branch`. */
  share(kind: string, branch: string, among: readonly string[]): number {
    const total = among.reduce((sum, other) => sum + this.of(kind, other), 0);
    return total === 0 ? 0 : this.of(kind, branch) / total;
  }
  kinds(): string[] {
    return Object.keys(this.counts);
  }
  report(title: string): void {
    console.log(
      `${title}:\n${Object.entries(this.counts)
        .map(([kind, branches]) => `  ${kind}: ${JSON.stringify(branches)}`)
        .join('\n')}`,
    );
  }
  /** Every kind was played at least `min` times, and each stated branch of it reached its least share. */
  expectShares(
    expected: Record<string, { runs: number; shares: [branch: string, least: number, among: readonly string[]][] }>,
  ): void {
    const short: string[] = [];
    for (const [kind, { runs, shares }] of Object.entries(expected)) {
      const played = this.of(kind, 'run');
      if (played < runs) short.push(`${kind}: played ${played} times, fewer than ${runs}`);
      for (const [branch, least, among] of shares) {
        const share = this.share(kind, branch, among);
        if (share < least)
          short.push(
            `${kind}: ${branch} in ${(share * 100).toFixed(0)}% of ${among.join(' / ')}, less than ${least * 100}%`,
          );
      }
    }
    expect(short).toEqual([]);
  }
}

const prototypeIsClean = (names: string[]) => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(names);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
};

describe('hostile calls of the library API', () => {
  let sandbox: LibrarySandbox;
  beforeAll(() => (sandbox = new LibrarySandbox()));
  afterAll(() => sandbox.close());
  const cleanPrototype = Object.getOwnPropertyNames(Object.prototype).sort();

  it('a valid call is answered, a broken one throws System1InputError naming the field; every question asked gets ok or a known code; no prototype is polluted', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const branches = new BranchCounts();
    await fc.assert(
      fc.asyncProperty(hostileCall, async ({ request, refused, valid, kind }) => {
        branches.add(kind, 'run');
        let result: DecideResult;
        try {
          result = await system1.decide(request as never);
        } catch (error) {
          branches.add(kind, 'refused');
          expect(valid).toBeUndefined();
          expect(error).toBeInstanceOf(System1InputError);
          for (const named of refused?.naming ?? []) expect((error as Error).message).toContain(named);
          prototypeIsClean(cleanPrototype);
          return;
        }
        branches.add(kind, 'answered');
        expect(refused).toBeUndefined();
        const asked = (request as { questions: Record<string, GeneratedQuestion> }).questions;
        expect(Object.keys(result.answers).sort()).toEqual(Object.keys(asked).sort());
        for (const [id, answer] of Object.entries(result.answers)) {
          if (answer.status === 'error') {
            branches.add(kind, `answer error ${answer.error.code}`);
            expect(QUESTION_ERROR_CODES).toContain(answer.error.code);
            continue;
          }
          branches.add(kind, 'answer ok');
          expect(answer.status).toBe('ok');
          expect(answer.answer.type).toBe(asked[id].type);
          // The mock picks the first candidate: the key order (prototype names included) survived the pipeline.
          if (answer.answer.type === 'choice')
            expect(answer.answer.value).toBe(Object.keys(asked[id].criteria as object)[0]);
        }
        expect(result.meta.requestId).toMatch(/^[0-9a-f-]{36}$/);
        prototypeIsClean(cleanPrototype);
      }),
      { numRuns: 1000 },
    );
    branches.report('hostile calls: runs per branch, by kind of call');
    const CALL = ['answered', 'refused'] as const;
    const ANSWERS = ['answer ok', ...QUESTION_ERROR_CODES.map((code) => `answer error ${code}`)];
    const refused = (least: number) => ({
      runs: 20,
      shares: [['refused', least, CALL]] as [string, number, readonly string[]][],
    });
    branches.expectShares({
      [VALID]: {
        runs: 150,
        shares: [
          ['answered', 1, CALL],
          ['answer ok', 0.5, ANSWERS],
        ],
      },
      ...Object.fromEntries(
        Object.keys(BREAKS)
          .filter((way) => way.startsWith('a prototype name') || way === 'a reserved question id')
          .map((way) => [way, refused(1)]),
      ),
      // Any JSON value is a state: nearly every one is answered (an engine may still call it unsupported).
      'a hostile state': { runs: 20, shares: [['answered', 0.8, CALL]] },
      'hostile questions': refused(0.9),
      'a hostile criteria': refused(0.9),
      'a hostile type': refused(0.9),
      'hostile images': refused(0.9),
      'a hostile model': refused(0.9),
      'a hostile timeoutMs': refused(0.9),
      // A hostile value is sometimes a valid one here (a number in [0, 1], a boolean).
      'a hostile minConfidence': refused(0.6),
      'a hostile longContext': refused(0.6),
      [ANYTHING]: { runs: 50, shares: [['refused', 1, CALL]] },
    });
  });

  it('read any reply an engine sends: a well-formed answer is read as sent, a broken one is that question’s invalid_response', async () => {
    // No cooldown: each run is judged on its own reply, not skipped as `unavailable` after earlier broken ones.
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"\ncooldown_s = 0');
    let reply: unknown;
    system1.registerProvider('wild', {
      capabilities: () => ({ batch: true, probabilities: true, questions: { types: ['choice', 'noul', 'score'] } }),
      evaluate: async () => reply as never,
    });
    // Candidates named like Object.prototype members: the reader must look them up as own keys.
    const asked = {
      pick: {
        type: 'choice' as const,
        instructions: 'Pick.',
        criteria: { toString: null, hasOwnProperty: 'the other' },
      },
      yes: { type: 'noul' as const, instructions: 'Yes?' },
      level: { type: 'score' as const, instructions: 'How much?', criteria: ['low', 'high'] },
    };
    type Id = keyof typeof asked;
    /** An engine answer and what the caller must get: `ok` with `read`, that question's invalid_response, or either. */
    interface Tagged {
      answer: unknown;
      expected: 'ok' | 'invalid_response' | 'either';
      read?: object;
      kind?: string;
    }
    const probability = fc.double({ min: 0, max: 1, noNaN: true });
    const decorated = <T extends object>(answer: fc.Arbitrary<T>) =>
      fc.tuple(answer, prototypeKeys).map(([value, names]) =>
        withOwn(
          { ...value },
          names.map((name) => [name, POISON] as const),
        ),
      );
    const well: Record<Id, fc.Arbitrary<Tagged>> = {
      pick: fc.tuple(fc.constantFrom('toString', 'hasOwnProperty'), probability).chain(([choice, p]) =>
        decorated(fc.constant({ type: 'choice', choice, probabilities: { toString: p, hasOwnProperty: 1 - p } })).map(
          (answer) => ({
            answer,
            expected: 'ok' as const,
            read: { type: 'choice', value: choice, probabilities: { toString: p, hasOwnProperty: 1 - p } },
          }),
        ),
      ),
      yes: probability.chain((noul) =>
        decorated(fc.constant({ type: 'noul', noul })).map((answer) => ({
          answer,
          expected: 'ok' as const,
          read: { type: 'noul', probabilityTrue: noul },
        })),
      ),
      level: fc.tuple(probability, probability, fc.boolean()).chain(([p, score, legend]) =>
        decorated(
          fc.constant({
            type: 'score',
            score,
            probabilities: { 0: p, 1: 1 - p },
            ...(legend && { legend: { 0: 'low', 1: 'high' } }),
          }),
        ).map((answer) => ({
          answer,
          expected: 'ok' as const,
          read: { type: 'score', value: score, distribution: [p, 1 - p] },
        })),
      ),
    };
    const BROKEN: Record<Id, unknown[]> = {
      pick: [
        { type: 'choice', choice: 'constructor', probabilities: { toString: 0.5, hasOwnProperty: 0.5 } },
        { type: 'choice', choice: 'toString', probabilities: { toString: 1 } },
        {
          type: 'choice',
          choice: 'toString',
          probabilities: withOwn({ toString: 0.5, hasOwnProperty: 0.5 }, [['__proto__', 0]]),
        },
        { type: 'choice', choice: 'toString', probabilities: { toString: 0.9, hasOwnProperty: 0.9 } },
        { type: 'noul', noul: 0.5 },
      ],
      yes: [
        { type: 'noul', noul: 1.5 },
        { type: 'noul', noul: '0.5' },
        { type: 'noul' },
        { type: 'choice', choice: 'yes' },
      ],
      level: [
        { type: 'score', score: 2, probabilities: { 0: 0.5, 1: 0.5 } },
        { type: 'score', score: 0, probabilities: { 0: 0.5, 1: 0.25, 2: 0.25 } },
        { type: 'score', score: 0, probabilities: { 0: 0.5, 1: 0.5 }, legend: { 0: 'high', 1: 'low' } },
      ],
    };
    const WELL = 'a well-formed answer';
    const answerFor = (id: Id): fc.Arbitrary<Tagged | undefined> =>
      fc.oneof(
        { weight: 6, arbitrary: well[id] },
        {
          weight: 3,
          arbitrary: decorated(fc.constantFrom(...(BROKEN[id] as object[]))).map((answer): Tagged => ({
            answer,
            expected: 'invalid_response',
            kind: 'a broken answer',
          })),
        },
        {
          weight: 1,
          arbitrary: hostileValue.map((answer): Tagged => ({
            answer,
            expected: 'either',
            kind: 'a hostile value as the answer',
          })),
        },
        { weight: 1, arbitrary: fc.constant(undefined) }, // left out of the reply
      );
    const structuredReply = fc
      .tuple(answerFor('pick'), answerFor('yes'), answerFor('level'), prototypeKeys, fc.oneof(well.yes, hostileValue))
      .map(([pick, yes, level, strays, stray]) => {
        const tagged = { pick, yes, level };
        const answers = withOwn({}, [
          ...Object.entries(tagged).flatMap(([id, one]) => (one ? [[id, one.answer] as const] : [])),
          ...strays.map((name) => [name, stray] as const),
        ]);
        return { reply: { answers } as unknown, tagged };
      });
    const wildReply = fc.oneof(
      { weight: 9, arbitrary: structuredReply },
      {
        weight: 1,
        arbitrary: fc
          .oneof(hostileValue, fc.record({ answers: hostileValue, errors: hostileValue }, { requiredKeys: [] }))
          .map((whole) => ({ reply: whole, tagged: undefined })),
      },
    );
    const branches = new BranchCounts();
    const cleanPrototype = Object.getOwnPropertyNames(Object.prototype).sort();
    await fc.assert(
      fc.asyncProperty(wildReply, async ({ reply: sent, tagged }) => {
        reply = sent;
        const result = await system1.decide({ state: 'x', questions: asked, model: { provider: 'wild' } });
        expect(Object.keys(result.answers).sort()).toEqual(['level', 'pick', 'yes']);
        for (const [id, answer] of Object.entries(result.answers) as [Id, (typeof result.answers)[string]][]) {
          const expected = tagged?.[id] ? tagged[id]!.expected : tagged ? 'invalid_response' : 'either';
          const kind = tagged
            ? tagged[id]
              ? (tagged[id]!.kind ?? WELL)
              : 'the answer left out'
            : 'a hostile reply as a whole';
          branches.add(kind, 'run');
          branches.add(kind, answer.status === 'ok' ? 'answer ok' : `answer error ${answer.error.code}`);
          if (expected === 'ok') {
            expect(answer).toMatchObject({ status: 'ok', answer: tagged![id]!.read });
          } else if (expected === 'invalid_response') {
            expect(answer).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
          } else if (answer.status === 'error') {
            expect(QUESTION_ERROR_CODES).toContain(answer.error.code);
          }
          if (answer.status === 'ok') {
            expect(answer.answer.type).toBe(asked[id].type);
            expect(answer.answer.confidence).toBeGreaterThanOrEqual(0);
            expect(answer.answer.confidence).toBeLessThanOrEqual(1);
          }
        }
        prototypeIsClean(cleanPrototype);
      }),
      { numRuns: 300 },
    );
    branches.report('wild engine replies: answers per branch, by kind of answer');
    const ANSWERS = ['answer ok', ...QUESTION_ERROR_CODES.map((code) => `answer error ${code}`)];
    const invalid = (least: number, runs = 30) => ({
      runs,
      shares: [['answer error invalid_response', least, ANSWERS]] as [string, number, readonly string[]][],
    });
    branches.expectShares({
      [WELL]: { runs: 300, shares: [['answer ok', 1, ANSWERS]] },
      'a broken answer': invalid(1, 150),
      'the answer left out': invalid(1),
      // A hostile value is almost never an answer of the question's type.
      'a hostile value as the answer': invalid(0.9),
      'a hostile reply as a whole': invalid(0.9),
    });
  });

  it('a hostile registered provider is a failed attempt: the next engine answers, and none of its text reaches the caller', async () => {
    // No cooldown: each run is judged on its own provider, not skipped after earlier failures.
    const system1 = await sandbox.open(
      '[gateway]\nprovider = "mock"\ncooldown_s = 0',
      {},
      { defaultModel: { provider: 'hostile' }, fallbackModels: [{ provider: 'mock' }] },
    );
    const asked = {
      pick: { type: 'choice' as const, instructions: 'Pick.', criteria: { a: null, b: null } },
      yes: { type: 'noul' as const, instructions: 'Yes?' },
      level: { type: 'score' as const, instructions: 'How much?', criteria: ['low', 'high'] },
    };
    const good = {
      pick: { type: 'choice', choice: 'a', probabilities: { a: 0.8, b: 0.2 } },
      yes: { type: 'noul', noul: 0.9 },
      level: { type: 'score', score: 0.2, probabilities: { 0: 0.8, 1: 0.2 } },
    };
    const capabilities = () => ({
      batch: true,
      probabilities: true,
      questions: { types: ['choice', 'noul', 'score'] },
    });
    /** Marks the provider's own text, so a leak into the result is found wherever it lands. */
    const MARK = 'HOSTILE-PROVIDER-TEXT';
    const fail = (text: string) => (): never => {
      throw new Error(`${MARK} ${text}`);
    };
    /** Every access and reflection of it throws the provider's text. */
    const throwing = (text: string) => {
      const boom = fail(text);
      return new Proxy(
        {},
        { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom, apply: boom },
      );
    };
    /** A provider that passes registration, then plays `after` for every access (`armed` once registered). */
    const turning = (after: (property: string | symbol) => unknown) => {
      const state = { armed: false };
      const engine = new Proxy(
        { capabilities, evaluate: async () => ({ answers: good }) } as Record<string | symbol, unknown>,
        {
          get: (target, property) => (state.armed ? after(property) : target[property]),
        },
      );
      return { engine, arm: () => (state.armed = true) };
    };
    type Played = { engine: object; arm?: () => void; expected: 'mock' | 'hostile' };
    const evaluating = (evaluate: () => Promise<unknown>): Played => ({
      engine: { capabilities, evaluate },
      expected: 'mock',
    });
    const KINDS: Record<string, (text: string, junk: unknown) => Played> = {
      'capabilities() throws': (text) => ({
        engine: { capabilities: fail(text), evaluate: async () => ({ answers: good }) },
        expected: 'mock',
      }),
      'capabilities() returns a throwing Proxy': (text) => ({
        engine: { capabilities: () => throwing(text), evaluate: async () => ({ answers: good }) },
        expected: 'mock',
      }),
      'the provider turns into a throwing Proxy': (text) => ({ ...turning(fail(text)), expected: 'mock' }),
      'the provider turns into a Proxy of junk': (_text, junk) => ({ ...turning(() => junk), expected: 'mock' }),
      'evaluate() throws its own Error': (text) => evaluating(async () => fail(text)()),
      'evaluate() throws before returning a promise': (text) => evaluating(() => fail(text)()),
      'pick() answers a throwing Proxy': (text) => ({
        engine: { capabilities, pick: async () => throwing(text) },
        expected: 'mock',
      }),
      "a dsh-system1 provider's describe() throws": (text) => ({
        engine: { describe: fail(text), evaluate: async () => ({ answers: good }) },
        expected: 'mock',
      }),
      'evaluate() throws a throwing Proxy': (text) =>
        evaluating(async () => {
          throw throwing(text);
        }),
      'the reply is a throwing Proxy': (text) => evaluating(async () => throwing(text)),
      'the reply answers getter throws': (text) =>
        evaluating(async () => ({
          get answers(): never {
            return fail(text)();
          },
        })),
      'the reply usage getter throws': (text) =>
        evaluating(async () => ({
          answers: good,
          get usage(): never {
            return fail(text)();
          },
        })),
      'the reply errors getter throws': (text) =>
        evaluating(async () => ({
          answers: good,
          get errors(): never {
            return fail(text)();
          },
        })),
      "an answer's getter throws": (text) =>
        evaluating(async () => ({
          answers: {
            ...good,
            get yes(): never {
              return fail(text)();
            },
          },
        })),
      'an answer is a throwing Proxy': (text) =>
        evaluating(async () => ({ answers: { ...good, level: throwing(text) } })),
      'junk beside good answers': (_text, junk) => ({
        engine: {
          capabilities,
          evaluate: async () => ({ answers: good, model: junk, usage: junk, approximate: junk, degraded: junk }),
        },
        expected: 'hostile',
      }),
    };
    // Junk that is no valid value of any of the four facts, and no method.
    const junk = fc.oneof(
      fc.constant({ model: 'x' }),
      fc.constant([1, 2]),
      fc.integer({ min: -5, max: 5 }),
      fc.constant(POISON),
      fc.string({ maxLength: 0 }),
    );
    const branches = new BranchCounts();
    const cleanPrototype = Object.getOwnPropertyNames(Object.prototype).sort();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(KINDS)),
        fc.string({ maxLength: 20 }),
        junk,
        async (kind, text, junkValue) => {
          branches.add(kind, 'run');
          const { engine, arm, expected } = KINDS[kind](text, junkValue);
          const dispose = system1.registerProvider('hostile', engine as never);
          arm?.();
          try {
            let result: DecideResult;
            try {
              result = await system1.decide({ state: 'x', questions: asked });
            } catch (error) {
              branches.add(kind, 'rejected');
              throw error;
            }
            expect(JSON.stringify(result)).not.toContain(MARK);
            for (const answer of Object.values(result.answers)) expect(answer.status).toBe('ok');
            branches.add(
              kind,
              result.meta.executed?.provider === 'mock' ? 'the next engine answered' : 'the provider answered',
            );
            if (expected === 'mock') {
              expect(result.meta.executed).toEqual({ provider: 'mock' });
              expect(result.meta.attempts).toEqual([
                {
                  provider: 'hostile',
                  error: {
                    code: expect.stringMatching(/^(provider_error|invalid_response)$/),
                    message: expect.any(String),
                  },
                },
              ]);
            } else {
              expect(result.meta.executed).toEqual({ provider: 'hostile' });
              for (const field of ['usage', 'approximate', 'degraded'] as const)
                expect(result.meta[field]).toBeUndefined();
              if (result.meta.warnings) branches.add(kind, 'warned');
            }
            prototypeIsClean(cleanPrototype);
          } finally {
            dispose();
          }
        },
      ),
      { numRuns: 480 },
    );
    branches.report('hostile providers: runs per branch, by kind of hostility');
    const ANSWERED_BY = ['the next engine answered', 'the provider answered', 'rejected'];
    branches.expectShares(
      Object.fromEntries(
        Object.keys(KINDS).map((kind) => [
          kind,
          kind === 'junk beside good answers'
            ? {
                runs: 10,
                shares: [
                  ['the provider answered', 1, ANSWERED_BY],
                  ['warned', 1, ['the provider answered']],
                ] as [string, number, readonly string[]][],
              }
            : {
                runs: 10,
                shares: [['the next engine answered', 1, ANSWERED_BY]] as [string, number, readonly string[]][],
              },
        ]),
      ),
    );
  });

  it('refuses to register a provider whose methods cannot be read, in its own words', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const boom = () => {
      throw new Error('HOSTILE-PROVIDER-TEXT');
    };
    const engine = new Proxy(
      {},
      { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom },
    );
    expect(() => system1.registerProvider('hostile', engine as never)).toThrow(System1InputError);
    expect(() => system1.registerProvider('hostile', engine as never)).toThrow(
      '"hostile" must implement capabilities() and evaluate() or pick(), or describe() and evaluate() (reading them threw)',
    );
  });
});
