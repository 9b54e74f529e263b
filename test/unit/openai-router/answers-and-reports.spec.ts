/** Answers back to JSON, the route header, and the agreement report that picks min_confidence. */
import type { Answer } from '../../../src/decisions/questions/question.types';
import type { DecideResult, QuestionResult } from '../../../src/library/library.types';
import { agreementReport } from '../../../src/openai-router/agreement-report';
import {
  buildObject,
  FastAnswerError,
  fieldsBelow,
  readFieldAnswers,
} from '../../../src/openai-router/answers-to-json';
import { routeHeader } from '../../../src/openai-router/route-report';
import { NULL_OPTION, schemaToQuestions } from '../../../src/openai-router/schema-to-questions';
import { compareFields } from '../../../src/openai-router/shadow-log';
import { choice, noul, score } from '../../helpers/stub-decider';

const plan = schemaToQuestions(
  {
    type: 'object',
    properties: {
      version: { const: 2 },
      merchant: { type: 'object', properties: { kind: { enum: ['shop', 'service'] }, online: { type: 'boolean' } } },
      channel: { anyOf: [{ enum: ['web', 'app'] }, { type: 'null' }] },
      severity: { type: 'integer', minimum: 1, maximum: 3 },
    },
  },
  'Transaction',
);

const result = (answers: Record<string, QuestionResult>): DecideResult => ({
  answers,
  meta: { requestId: 'r', requested: { provider: 'stub' }, durationMs: 1 },
});
const ok = (answer: Answer): QuestionResult => ({ status: 'ok', answer, belowThreshold: false });

const CONFIDENT = {
  'merchant.kind': ok(choice('service', 0.9)),
  'merchant.online': ok(noul(0.1)),
  channel: ok(choice(NULL_OPTION, 0.85)),
  severity: ok(score(2, 0.7)),
};

describe('answers to JSON', () => {
  it('rebuilds the nested object in schema order: constants filled in, null option as null, the level as its integer, p < 0.5 as false', () => {
    const fields = readFieldAnswers(plan, result(CONFIDENT));
    const object = buildObject(plan.shape, fields);
    expect(object).toEqual({ version: 2, merchant: { kind: 'service', online: false }, channel: null, severity: 3 });
    expect(Object.keys(object as object)).toEqual(['version', 'merchant', 'channel', 'severity']);
  });

  it('puts every field on one confidence scale: a noul at p = 0.1 has confidence |2p - 1| = 0.8', () => {
    const fields = readFieldAnswers(plan, result(CONFIDENT));
    expect(fields.map((f) => [f.id, f.confidence])).toEqual([
      ['merchant.kind', 0.9],
      ['merchant.online', expect.closeTo(0.8, 10)],
      ['channel', 0.85],
      ['severity', 0.7],
    ]);
    expect(fieldsBelow(fields, 0.8).map((f) => f.id)).toEqual(['severity']);
    expect(fieldsBelow(fields, 0.7)).toEqual([]);
  });

  it.each([
    ['a missing answer', { ...CONFIDENT, severity: undefined }, 'field severity: no answer'],
    [
      'a question error',
      { ...CONFIDENT, severity: { status: 'error', error: { code: 'unsupported', message: 'no scores\nhere' } } },
      'field severity: unsupported (no scores here)',
    ],
    [
      'an answer of another type',
      { ...CONFIDENT, severity: ok(choice('x', 0.9)) },
      'field severity: answered as choice, asked as score',
    ],
    [
      'an option not offered',
      { ...CONFIDENT, 'merchant.kind': ok(choice('bank', 0.9)) },
      'field merchant.kind: chose an option that was not offered',
    ],
    [
      'a level not offered',
      { ...CONFIDENT, severity: ok(score(3, 0.9, 4)) },
      'field severity: a level that was not offered',
    ],
  ])('%s is a fast-engine error naming the field', (_name, answers, detail) => {
    const cleaned = Object.fromEntries(Object.entries(answers).filter(([, v]) => v !== undefined)) as Record<
      string,
      QuestionResult
    >;
    expect(() => readFieldAnswers(plan, result(cleaned))).toThrow(new FastAnswerError(detail));
  });
});

describe('the route header', () => {
  it.each([
    [{ route: 'fast' as const }, 'fast'],
    [
      { route: 'ineligible' as const, detail: 'field notes is free text' },
      'ineligible; detail="field notes is free text"',
    ],
    [{ route: 'low_confidence' as const, detail: 'x', shadow: true }, 'low_confidence; shadow; detail="x"'],
    [
      { route: 'ineligible' as const, detail: 'field catégorie "a"\nb' },
      'ineligible; detail="field cat\\u00e9gorie \\"a\\"\\nb"',
    ],
  ])('%j', (report, header) => {
    expect(routeHeader(report)).toBe(header);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
  });
});

describe('the agreement report', () => {
  const line = (route: string, fields?: { confidence: number; agree?: boolean }[]) => JSON.stringify({ route, fields });
  const lines = [
    line('fast', [
      { confidence: 0.95, agree: true },
      { confidence: 0.9, agree: true },
    ]),
    line('low_confidence', [
      { confidence: 0.95, agree: true },
      { confidence: 0.6, agree: false },
    ]),
    line('low_confidence', [{ confidence: 0.72, agree: true }]),
    line('fast', [{ confidence: 0.99 }]), // the slow answer could not be read
    line('ineligible'),
    line('fast_model_error'),
    'not json',
  ];

  it('counts fast share over every request and agreement over those compared, at each threshold', () => {
    const report = agreementReport(lines, 0.95);
    expect(report).toMatchObject({
      records: 6,
      unreadable_lines: 1,
      by_route: { fast: 2, low_confidence: 2, ineligible: 1, fast_model_error: 1 },
    });
    const at = (t: number) => report.rows.find((row) => row.threshold === t);
    expect(at(0.5)).toEqual({ threshold: 0.5, fast: 4, fast_share: 4 / 6, compared: 3, agreed: 2, agreement: 2 / 3 });
    expect(at(0.7)).toMatchObject({ fast: 3, compared: 2, agreed: 2, agreement: 1 });
    expect(at(0.75)).toMatchObject({ fast: 2, compared: 1, agreement: 1 });
    expect(at(0.95)).toMatchObject({ fast: 1, compared: 0, agreement: null });
    expect(report.suggested).toMatchObject({ threshold: 0.65 }); // the lowest at which the 0.6 field no longer counts
  });

  it('suggests nothing when no threshold reaches the target', () => {
    expect(agreementReport([line('fast', [{ confidence: 0.99, agree: false }])], 0.9).suggested).toBeNull();
  });
});

describe('shadow comparisons', () => {
  it('compare each field with the slow answer at its path', () => {
    const fields = [
      { id: 'merchant.kind', value: 'shop', confidence: 0.9 },
      { id: 'channel', value: null, confidence: 0.8 },
      { id: 'severity', value: 2, confidence: 0.7 },
    ];
    expect(compareFields(fields, { merchant: { kind: 'shop' }, channel: 'web', notes: 'x'.repeat(200) })).toEqual([
      { id: 'merchant.kind', fast: 'shop', confidence: 0.9, slow: 'shop', agree: true },
      { id: 'channel', fast: null, confidence: 0.8, slow: 'web', agree: false },
      { id: 'severity', fast: 2, confidence: 0.7, slow: '(missing)', agree: false },
    ]);
    expect(compareFields(fields, undefined)[0]).toEqual({ id: 'merchant.kind', fast: 'shop', confidence: 0.9 });
  });
});
