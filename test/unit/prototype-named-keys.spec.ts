/**
 * Keys a caller writes are looked up only among the keys that were meant: one named like an Object.prototype
 * member (`constructor`, `toString`, `valueOf`) must not find the inherited function and pass as known.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Ineligible } from '../../src/openai-router/ineligible';
import { readFastCandidate } from '../../src/openai-router/request-eligibility';

const HEADERS: IncomingHttpHeaders = { 'content-type': 'application/json' };
const chat = (extra: Record<string, unknown>) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'NETFLIX.COM 866-579-7172 CA' }],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'T',
      schema: { type: 'object', properties: { c: { enum: ['a', 'b'] } }, required: ['c'], additionalProperties: false },
    },
  },
  ...extra,
});

describe('OpenAI request options named like Object.prototype members', () => {
  it.each(['constructor', 'toString', 'valueOf'])(
    '%s is an option the fast engine cannot honour, as an unknown one is',
    (name) => {
      // As JSON.parse gives it: an own property, whatever its name.
      const body = JSON.parse(JSON.stringify(chat({}))) as Record<string, unknown>;
      Object.defineProperty(body, name, { value: 1, enumerable: true });
      let detail = 'eligible';
      try {
        readFastCandidate('chat.completions', body, HEADERS, '');
      } catch (error) {
        if (!(error instanceof Ineligible)) throw error;
        detail = error.detail;
      }
      expect(detail).toBe(`option ${name} is not one the fast engine can honour`);
    },
  );

  it('an unknown option is refused the same way (control)', () => {
    expect(() => readFastCandidate('chat.completions', chat({ bogus: 1 }), HEADERS, '')).toThrow(Ineligible);
  });
});
