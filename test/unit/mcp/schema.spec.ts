import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { render } from '../../../src/commands/schema.command';
import { PACKAGE_ROOT } from '../../../src/config/paths';
import { checkDecideRequest } from '../../../src/mcp/decide/request-validation';
import { buildSchemas } from '../../../src/mcp/schema/schema-export';
import { DECLARED_TOOLS } from '../../../src/mcp/tool-list';
import { SPEC_REQUEST, specResponse } from '../../fixtures/spec-example';

const committed = (name: string) => readFileSync(path.join(PACKAGE_ROOT, 'schema', name), 'utf8');
const published = buildSchemas(DECLARED_TOOLS);
const [request, response] = [published['request.json'], published['response.json']];
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validRequest = ajv.compile(request);
const validResponse = ajv.compile(response);

const SPEC_RESPONSE = specResponse();
/** The fields a refusal of an unknown one lists, in the words system1_ask and the library use too. */
const FIELDS = 'question, options, context, min_confidence, request_id, schema_version';

describe('published schemas', () => {
  it.each(Object.keys(published))('%s is what the DTOs generate (run `npm run build` and commit schema/)', (file) => {
    expect(committed(file)).toBe(render(published[file]));
  });

  it('validate the spec example request and response', () => {
    expect(validRequest(SPEC_REQUEST)).toBe(true);
    expect(validResponse(SPEC_RESPONSE)).toBe(true);
    const errorReply = {
      ...SPEC_RESPONSE,
      status: 'error',
      decision: null,
      confidence: null,
      probabilities: null,
      attempts: [],
      error: { code: 'invalid_request', message: 'x' },
    };
    expect(validResponse(errorReply)).toBe(true);
  });

  it('reject an unknown field on either side', () => {
    expect(validRequest({ ...SPEC_REQUEST, temperature: 0 })).toBe(false);
    expect(validResponse({ ...SPEC_RESPONSE, extra: true })).toBe(false);
    expect(validResponse({ ...SPEC_RESPONSE, attempts: [{ ...SPEC_RESPONSE.attempts[0], retries: 1 }] })).toBe(false);
    expect(validResponse({ ...SPEC_RESPONSE, status: 'maybe' })).toBe(false);
  });

  const long = (n: number) => 'x'.repeat(n);
  const many = (n: number) => Array.from({ length: n }, (_, i) => `option ${i}`);
  it.each([
    ['the spec example', SPEC_REQUEST],
    ['a yes/no question', { question: 'Safe?' }],
    [
      'every field at its limits',
      {
        question: long(8000),
        options: [long(500), ...many(255)],
        context: { a: [1] },
        min_confidence: 1,
        request_id: long(128),
        schema_version: '1',
      },
    ],
    ['min_confidence 0', { question: 'q', min_confidence: 0 }],
    ['no question', { options: ['a', 'b'] }],
    ['an empty question', { question: '' }],
    ['a blank question', { question: '  \n' }],
    ['a numeric question', { question: 42 }],
    ['a question over 8000 characters', { question: long(8001) }],
    ['one option', { question: 'q', options: ['a'] }],
    ['257 options', { question: 'q', options: many(257) }],
    ['duplicate options', { question: 'q', options: ['a', 'a'] }],
    ['an empty option', { question: 'q', options: ['a', ''] }],
    ['a blank option', { question: 'q', options: ['a', ' '] }],
    ['an option over 500 characters', { question: 'q', options: ['a', long(501)] }],
    ['a numeric option', { question: 'q', options: ['a', 2] }],
    ['options as text', { question: 'q', options: 'a,b' }],
    ['null options', { question: 'q', options: null }],
    ['context as an array', { question: 'q', context: [1] }],
    ['context as text', { question: 'q', context: 'ctx' }],
    ['min_confidence below 0', { question: 'q', min_confidence: -0.01 }],
    ['min_confidence above 1', { question: 'q', min_confidence: 1.01 }],
    ['min_confidence as text', { question: 'q', min_confidence: '0.5' }],
    ['an empty request_id', { question: 'q', request_id: '' }],
    ['a request_id over 128 characters', { question: 'q', request_id: long(129) }],
    ['schema_version 2', { question: 'q', schema_version: '2' }],
    ['schema_version as a number', { question: 'q', schema_version: 1 }],
    ['an unknown field', { question: 'q', model: 'big' }],
  ])('agree with the gateway on %s', (_name, candidate) => {
    const gateway = checkDecideRequest(candidate);
    expect(validRequest(candidate)).toBe(gateway.ok);
  });
});

describe('request check', () => {
  it('refuses a __proto__ field whether it arrives as a key or has already become the prototype', () => {
    const asKey = JSON.parse('{"question": "Q?", "__proto__": {"question": 1}}') as unknown;
    const asPrototype = Object.assign(Object.create({ question: 1 }) as object, { question: 'Q?' });
    for (const candidate of [asKey, asPrototype]) {
      expect(checkDecideRequest(candidate)).toEqual({
        ok: false,
        message: expect.stringContaining('"__proto__" is not a field of the system1_decide arguments'),
      });
    }
    expect(({} as Record<string, unknown>).question).toBeUndefined();
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])('refuses a field named after an Object member (%s)', (key) => {
    expect(checkDecideRequest({ question: 'Q?', [key]: 1 })).toEqual({
      ok: false,
      message: `invalid request: "${key}" is not a field of the system1_decide arguments (fields: ${FIELDS})`,
    });
  });
});
