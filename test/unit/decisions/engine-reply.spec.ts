import { capabilitiesData, replyData } from '../../../src/decisions/pipeline/engine-reply';
import type { ProviderCapabilities } from '../../../src/decisions/registry/provider.interface';

const facts = (model: string) => ({
  batch: true,
  probabilities: true,
  model,
  questions: { types: ['choice' as const] },
});

describe("capabilitiesData: an engine's capabilities read as data", () => {
  it('reads frozen plain data once: the same frozen copy for every later call', () => {
    const stated = Object.freeze({ ...facts('m'), questions: Object.freeze({ types: Object.freeze(['choice']) }) });
    const first = capabilitiesData('e', () => stated as ProviderCapabilities);
    const second = capabilitiesData('e', () => stated as ProviderCapabilities);
    expect(second).toBe(first);
    expect(first.facts).not.toBe(stated);
    expect(first.facts).toEqual(facts('m'));
    expect(Object.isFrozen(first.facts.questions)).toBe(true);
  });

  it('reads an object that may change at every call, and sees the change', () => {
    const stated = facts('m1');
    expect(capabilitiesData('e', () => stated).facts.model).toBe('m1');
    stated.model = 'm2';
    expect(capabilitiesData('e', () => stated).facts.model).toBe('m2');
  });

  it('reads again an object frozen only at its top (its nested data can change)', () => {
    const types: string[] = ['choice'];
    const stated = Object.freeze({ ...facts('m'), questions: { types } }) as unknown as ProviderCapabilities;
    capabilitiesData('e', () => stated);
    types.push('noul');
    expect(capabilitiesData('e', () => stated).typed.types).toEqual(['choice', 'noul']);
  });

  it('runs a getter of a frozen object at every call, and an inherited toJSON too', () => {
    let reads = 0;
    const withGetter = Object.freeze(
      Object.defineProperty({ ...facts('m') }, 'model', { get: () => `m${++reads}`, enumerable: true }),
    );
    capabilitiesData('e', () => withGetter);
    expect(capabilitiesData('e', () => withGetter).facts.model).toBe('m2');

    let serialised = 0;
    const prototype = { toJSON: () => ({ ...facts(`t${++serialised}`) }) };
    const withToJson = Object.freeze(Object.assign(Object.create(prototype) as object, facts('m')));
    capabilitiesData('e', () => withToJson as ProviderCapabilities);
    expect(capabilitiesData('e', () => withToJson as ProviderCapabilities).facts.model).toBe('t2');
  });

  it('refuses a frozen Proxy whose traps throw, in its own words, at every call', () => {
    const hostile = new Proxy(Object.freeze(facts('m')), {
      ownKeys: () => {
        throw new Error('secret-laden provider text');
      },
    });
    for (let i = 0; i < 2; i++)
      expect(() => capabilitiesData('e', () => hostile)).toThrow(
        'e: what capabilities() returned cannot be read as data',
      );
  });
});

describe("replyData: an engine's answers copied as data", () => {
  const fc = require('fast-check') as typeof import('fast-check');
  const { replyData } =
    require('../../../src/decisions/pipeline/engine-reply') as typeof import('../../../src/decisions/pipeline/engine-reply');
  const copied = (answer: unknown) => replyData('e', { answers: { q: answer } }, { q: {} }).reply.answers.q;

  /** What JSON carries as it is: plain objects and arrays (no holes) of text, finite numbers, booleans, null. */
  const isJsonData = (value: unknown): boolean => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
    if (typeof value === 'number') return Number.isFinite(value);
    if (typeof value !== 'object') return false;
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (Array.isArray(value))
      return prototype === Array.prototype && Object.keys(value).length === value.length && value.every(isJsonData);
    if (prototype !== Object.prototype && prototype !== null) return false;
    return Object.values(value).every(isJsonData);
  };

  it("is the same as JSON's round trip for any value, plain or not (and fails where JSON fails)", () => {
    const reached = { plain: 0, converted: 0, refused: 0 };
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withNullPrototype: true,
          withSparseArray: true,
          withBigInt: true,
          withObjectString: true,
          maxDepth: 4,
        }),
        (value) => {
          let expected: unknown;
          try {
            const text = JSON.stringify(value);
            expected = text === undefined ? undefined : JSON.parse(text);
          } catch {
            reached.refused++;
            expect(() => copied(value)).toThrow('e\'s answer to "q" cannot be read as data');
            return;
          }
          if (isJsonData(value)) reached.plain++;
          else reached.converted++;
          const copy = copied(value);
          expect(copy).toStrictEqual(expected);
          if (typeof value === 'object' && value !== null) expect(copy).not.toBe(value);
        },
      ),
      {
        numRuns: 2000,
        // The values where the two copies could part, each tried at least once.
        examples: [
          [-0],
          [{ p: -0 }],
          [[NaN, Infinity]],
          [[1, , 3]],
          [[undefined, () => 1]],
          [{ a: undefined, f: () => 1 }],
          [new Date(0)],
          [{ toJSON: () => 'x' }],
          [Object.create({ inherited: 1 }) as unknown],
          [new Proxy({ a: 1 }, {})],
        ],
      },
    );
    // Both ways of copying, and JSON's refusal, are reached by a fair share of the cases.
    const total = reached.plain + reached.converted + reached.refused;
    expect(reached.plain / total).toBeGreaterThan(0.15);
    expect(reached.converted / total).toBeGreaterThan(0.15);
    expect(reached.refused / total).toBeGreaterThan(0.01);
  });

  it('keeps a "__proto__" key as an own key, as JSON.parse does, and the copy\'s prototype plain', () => {
    const answer = JSON.parse('{"__proto__": {"polluted": true}, "value": "a"}') as Record<string, unknown>;
    const copy = copied(answer) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'value']);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('copies a nested answer, so a later change by the engine changes nothing read', () => {
    const answer = { value: 'a', probabilities: { a: 0.9, b: 0.1 } };
    const copy = copied(answer) as typeof answer;
    answer.probabilities.a = 0.1;
    expect(copy.probabilities.a).toBe(0.9);
  });
});

describe("replyData: an engine's reply as data", () => {
  it('keeps the answer to a question named "__proto__" as its own key, and counts answers nobody asked', () => {
    const asked = JSON.parse('{"__proto__": {}, "b": {}}') as Record<string, unknown>;
    const reply = JSON.parse('{"model": "m", "answers": {"__proto__": {"choice": "x"}, "b": 1, "c": 2}}') as unknown;
    const read = replyData('e', reply, asked);
    expect(Object.getPrototypeOf(read.reply.answers)).toBe(Object.prototype);
    expect(Object.hasOwn(read.reply.answers, '__proto__')).toBe(true);
    expect(JSON.stringify(read.reply.answers)).toBe('{"__proto__":{"choice":"x"},"b":1}');
    expect(read.reply.model).toBe('m');
    expect(read.reply).not.toHaveProperty('errors');
    expect(read.stray).toEqual({ count: 1, first: ['c'] });
  });

  it('names the answer it cannot read, in words of its own', () => {
    const answers = {
      get a() {
        throw new Error("the provider's own words");
      },
    };
    expect(() => replyData('e', { answers }, { a: {} })).toThrow("e's answers cannot be read as data");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => replyData('e', { answers: { a: cyclic } }, { a: {} })).toThrow(
      'e\'s answer to "a" cannot be read as data',
    );
  });
});
