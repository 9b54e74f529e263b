/**
 * schema/library-request.json comes from the same DTOs as the library's check: what the check accepts the
 * schema accepts, and what it refuses (JSON-expressible cases) the schema refuses too.
 */
import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { assertLibraryRequest } from '../../../src/library/request-check';
import { buildLibraryRequestSchema } from '../../../src/library/dto/library-schema';
import { PIXEL, THREE_QUESTIONS } from './library-setup';

const schema = JSON.parse(readFileSync(path.join(__dirname, '../../../schema/library-request.json'), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);
const accepted = (request: unknown) => {
  try {
    assertLibraryRequest(request);
    return true;
  } catch {
    return false;
  }
};

it('is the file the DTOs generate (npm run build writes it)', () => {
  expect(schema).toEqual(buildLibraryRequestSchema());
});

it.each([
  ['three typed questions', { state: 'x', questions: THREE_QUESTIONS }],
  [
    'a JSON state, yes/no criteria, an image and a model',
    {
      state: { a: [1] },
      questions: {
        q: { type: 'noul', instructions: '?', criteria: { true: 'yes' } },
        b: { type: 'box', instructions: 'Find it.' },
      },
      images: [{ mediaType: 'image/png', data: PIXEL }],
      model: { provider: 'laya', model: 'english' },
      timeoutMs: 800,
      minConfidence: 0.5,
    },
  ],
])('accepts %s, as the check does', (_what, request) => {
  expect(accepted(request)).toBe(true);
  expect(validate(request) ? [] : validate.errors).toEqual([]);
});

it.each([
  ['an unknown field', { state: 'x', questions: THREE_QUESTIONS, temperature: 0 }],
  ['no questions', { state: 'x', questions: {} }],
  [
    'a choice with one candidate',
    { state: 'x', questions: { q: { type: 'choice', instructions: '?', criteria: { a: null } } } },
  ],
  ['an unknown question type', { state: 'x', questions: { q: { type: 'rank', instructions: '?' } } }],
  [
    'an unknown field of a question',
    { state: 'x', questions: { q: { type: 'noul', instructions: '?', options: [] } } },
  ],
  [
    'a score with one level',
    { state: 'x', questions: { q: { type: 'score', instructions: '?', criteria: ['only'] } } },
  ],
  [
    'five images',
    { state: 'x', questions: THREE_QUESTIONS, images: Array(5).fill({ mediaType: 'image/png', data: PIXEL }) },
  ],
  ['a gif', { state: 'x', questions: THREE_QUESTIONS, images: [{ mediaType: 'image/gif', data: PIXEL }] }],
  ['a zero timeout', { state: 'x', questions: THREE_QUESTIONS, timeoutMs: 0 }],
  ['a threshold above 1', { state: 'x', questions: THREE_QUESTIONS, minConfidence: 1.5 }],
  [
    'a model with an extra field',
    { state: 'x', questions: THREE_QUESTIONS, model: { provider: 'laya', region: 'eu' } },
  ],
])('refuses %s, as the check does', (_what, request) => {
  expect(accepted(request)).toBe(false);
  expect(validate(request)).toBe(false);
});
