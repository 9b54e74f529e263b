import { capabilitiesData } from '../../../src/decisions/pipeline/engine-reply';
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
