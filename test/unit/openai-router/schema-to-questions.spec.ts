/** The mapping table of spec/lazycontroller-schemas.txt, row by row, and every schema the page sends upstream. */
import { Ineligible } from '../../../src/openai-router/ineligible';
import { humanise, NULL_OPTION, schemaToQuestions } from '../../../src/openai-router/schema-to-questions';

const objectOf = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

const plan = (properties: Record<string, unknown>, extra?: Record<string, unknown>) =>
  schemaToQuestions(objectOf(properties, extra), 'Transaction');

function ineligible(schema: unknown): string {
  try {
    schemaToQuestions(schema, 'Transaction');
  } catch (error) {
    if (error instanceof Ineligible) return error.detail;
    throw error;
  }
  throw new Error('expected the schema to be ineligible');
}
const fieldIneligible = (field: unknown) => ineligible(objectOf({ field, ok: { type: 'boolean' } }));

describe('enums and literals become choice questions, one option per value', () => {
  it.each([
    ['a JSON enum', { type: 'string', enum: ['groceries', 'rent', 'subscriptions'] }],
    ['an enum without type (pydantic Literal)', { enum: ['groceries', 'rent', 'subscriptions'] }],
  ])('%s', (_name, field) => {
    const { questions, leaves } = plan({ category: field });
    expect(questions.category).toEqual({
      type: 'choice',
      instructions: 'Decide the field `category` of the Transaction the conversation asks for: category',
      criteria: { groceries: null, rent: null, subscriptions: null },
    });
    expect(leaves[0]).toEqual({
      kind: 'choice',
      id: 'category',
      options: [
        { key: 'groceries', value: 'groceries' },
        { key: 'rent', value: 'rent' },
        { key: 'subscriptions', value: 'subscriptions' },
      ],
    });
  });

  it('a python Enum behind a $ref in $defs, with the field description beside the ref', () => {
    const schema = {
      ...objectOf({ category: { $ref: '#/$defs/Category', description: 'What the money was spent on' } }),
      $defs: {
        Category: { title: 'Category', description: 'An enum docstring', type: 'string', enum: ['food', 'travel'] },
      },
    };
    const { questions } = schemaToQuestions(schema, 'Transaction');
    expect(questions.category).toEqual({
      type: 'choice',
      instructions:
        'Decide the field `category` of the Transaction the conversation asks for: What the money was spent on',
      criteria: { food: null, travel: null },
    });
  });

  it('zod-to-json-schema definitions and an allOf of one', () => {
    const schema = {
      ...objectOf({
        a: { allOf: [{ $ref: '#/definitions/Level' }], description: 'the level' },
        b: { $ref: '#/properties/a' },
      }),
      definitions: { Level: { type: 'string', enum: ['low', 'high'] } },
    };
    const { questions } = schemaToQuestions(schema, 'T');
    expect(questions.a).toMatchObject({ type: 'choice', criteria: { low: null, high: null } });
    expect(questions.b).toMatchObject({ type: 'choice', criteria: { low: null, high: null } });
  });

  it('enums of numbers and booleans keep their JSON values', () => {
    const { questions, leaves } = plan({ tier: { enum: [1, 2, 5] } });
    expect(questions.tier).toMatchObject({ criteria: { '1': null, '2': null, '5': null } });
    expect(leaves[0]).toMatchObject({
      options: [
        { key: '1', value: 1 },
        { key: '2', value: 2 },
        { key: '5', value: 5 },
      ],
    });
  });
});

describe('booleans become noul questions', () => {
  it('asks yes/no', () => {
    const { questions, leaves } = plan({
      is_recurring: { type: 'boolean', description: 'Is this a recurring charge?' },
    });
    expect(questions.is_recurring).toEqual({
      type: 'noul',
      instructions:
        'Decide the field `is_recurring` of the Transaction the conversation asks for: Is this a recurring charge?',
    });
    expect(leaves[0]).toEqual({ kind: 'noul', id: 'is_recurring' });
  });
});

describe('bounded integers with 2 to 11 values become score questions', () => {
  it.each([
    ['minimum/maximum', { type: 'integer', minimum: 1, maximum: 3 }, 1, ['1', '2', '3']],
    [
      'ge/le at the widest (11 values)',
      { type: 'integer', minimum: 0, maximum: 10 },
      0,
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10'],
    ],
    ['two values', { type: 'integer', minimum: -1, maximum: 0 }, -1, ['-1', '0']],
    ['exclusive bounds (gt/lt)', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 4 }, 1, ['1', '2', '3']],
    [
      'draft-4 exclusive flags',
      { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 3 },
      1,
      ['1', '2', '3'],
    ],
  ])('%s', (_name, field, lowest, criteria) => {
    const { questions, leaves } = plan({ severity: field });
    expect(questions.severity).toEqual({
      type: 'score',
      instructions: expect.stringContaining('`severity`'),
      criteria,
    });
    expect(leaves[0]).toEqual({ kind: 'score', id: 'severity', lowest, levels: criteria.length });
  });
});

describe('X | null becomes a choice with a "Not stated or not applicable" option', () => {
  it.each([
    [
      'anyOf with a null branch (pydantic Optional)',
      { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }], default: null },
    ],
    ['the null branch first', { anyOf: [{ type: 'null' }, { enum: ['a', 'b'] }] }],
    ['oneOf with a null branch', { oneOf: [{ enum: ['a', 'b'] }, { type: 'null' }] }],
    ['null among the enum values', { type: ['string', 'null'], enum: ['a', 'b', null] }],
    ['a $ref branch', { anyOf: [{ $ref: '#/$defs/AB' }, { type: 'null' }] }],
  ])('an enum: %s', (_name, field) => {
    const schema = { ...objectOf({ x: field }), $defs: { AB: { enum: ['a', 'b'] } } };
    const { questions, leaves } = schemaToQuestions(schema, 'T');
    expect(questions.x).toMatchObject({ type: 'choice', criteria: { a: null, b: null, [NULL_OPTION]: null } });
    expect(leaves[0]).toMatchObject({
      options: [
        { key: 'a', value: 'a' },
        { key: 'b', value: 'b' },
        { key: NULL_OPTION, value: null },
      ],
    });
  });

  it.each([
    ['anyOf', { anyOf: [{ type: 'boolean' }, { type: 'null' }] }],
    ['a type list', { type: ['boolean', 'null'] }],
  ])('a boolean: %s', (_name, field) => {
    const { questions, leaves } = plan({ refunded: field });
    expect(questions.refunded).toMatchObject({
      type: 'choice',
      criteria: { true: null, false: null, [NULL_OPTION]: null },
    });
    expect(leaves[0]).toMatchObject({
      options: [
        { key: 'true', value: true },
        { key: 'false', value: false },
        { key: NULL_OPTION, value: null },
      ],
    });
  });

  it('a literal or null asks between the literal and null', () => {
    const { questions } = plan({ x: { anyOf: [{ const: 'yes' }, { type: 'null' }] } });
    expect(questions.x).toMatchObject({ type: 'choice', criteria: { yes: null, [NULL_OPTION]: null } });
  });

  it('a type that allows null beside an enum that does not: null is not valid, no extra option', () => {
    const { questions } = plan({ x: { type: ['string', 'null'], enum: ['a', 'b'] } });
    expect(questions.x).toMatchObject({ criteria: { a: null, b: null } });
  });
});

describe('nested objects become one question per leaf with dotted paths', () => {
  it('asks merchant.kind and merchant.online and keeps the layout', () => {
    const schema = {
      ...objectOf({
        merchant: { $ref: '#/$defs/Merchant' },
        flagged: { type: 'boolean' },
      }),
      $defs: {
        Merchant: objectOf({
          kind: { enum: ['shop', 'service'] },
          online: { type: 'boolean', description: 'Sold online?' },
        }),
      },
    };
    const result = schemaToQuestions(schema, 'Transaction');
    expect(Object.keys(result.questions)).toEqual(['merchant.kind', 'merchant.online', 'flagged']);
    expect(result.questions['merchant.online']).toEqual({
      type: 'noul',
      instructions: 'Decide the field `merchant.online` of the Transaction the conversation asks for: Sold online?',
    });
    expect(result.shape).toEqual({
      kind: 'object',
      properties: [
        [
          'merchant',
          {
            kind: 'object',
            properties: [
              ['kind', expect.objectContaining({ id: 'merchant.kind' })],
              ['online', { kind: 'noul', id: 'merchant.online' }],
            ],
          },
        ],
        ['flagged', { kind: 'noul', id: 'flagged' }],
      ],
    });
  });
});

describe('Literal["x"] and const ask nothing and are filled in', () => {
  it.each([
    ['const', { const: 'v1' }, 'v1'],
    ['pydantic Literal["x"] (const with enum)', { const: 'v1', enum: ['v1'], type: 'string' }],
    ['a one-value enum', { enum: ['v1'] }],
    ['type null', { type: 'null' }, null],
  ])('%s', (_name, field, value = 'v1') => {
    const { questions, shape } = plan({ version: field, ok: { type: 'boolean' } });
    expect(Object.keys(questions)).toEqual(['ok']);
    expect(shape).toMatchObject({
      properties: [
        ['version', { kind: 'const', value }],
        ['ok', { kind: 'noul' }],
      ],
    });
  });
});

describe('question wording', () => {
  it('uses the description, trimmed, else the humanised field name', () => {
    const { questions } = plan({
      is_urgent: { type: 'boolean' },
      needsReview: { type: 'boolean', description: '  Does a person need to look?  ' },
    });
    expect(questions.is_urgent).toMatchObject({
      instructions: 'Decide the field `is_urgent` of the Transaction the conversation asks for: is urgent',
    });
    expect(questions.needsReview).toMatchObject({
      instructions:
        'Decide the field `needsReview` of the Transaction the conversation asks for: Does a person need to look?',
    });
  });

  it.each([
    ['is_urgent', 'is urgent'],
    ['isUrgent', 'is urgent'],
    ['is-urgent', 'is urgent'],
    ['HTTPStatus', 'httpstatus'],
  ])('humanises %s', (name, words) => {
    expect(humanise(name)).toBe(words);
  });

  it('annotations are fine', () => {
    expect(() =>
      plan(
        {
          x: {
            type: 'boolean',
            title: 'X',
            description: 'd',
            default: false,
            examples: [true],
            $comment: 'c',
            deprecated: false,
          },
        },
        { title: 'T', $schema: 'https://json-schema.org/draft/2020-12/schema' },
      ),
    ).not.toThrow();
  });
});

describe('schemas that go to the slow model, with the field named', () => {
  it.each([
    ['free text', { type: 'string' }, 'field field is free text'],
    ['free text with a format', { type: 'string', format: 'date' }, 'field field is free text'],
    ['an array', { type: 'array', items: { enum: ['a'] } }, 'field field is an array'],
    ['a float', { type: 'number', minimum: 0, maximum: 1 }, 'field field is a number that need not be whole'],
    ['an integer without bounds', { type: 'integer' }, 'field field is an integer without both bounds'],
    ['an integer with one bound', { type: 'integer', minimum: 0 }, 'field field is an integer without both bounds'],
    [
      'an integer with 12 values',
      { type: 'integer', minimum: 0, maximum: 11 },
      'field field is an integer with 12 possible values',
    ],
    [
      'an integer with one value',
      { type: 'integer', minimum: 3, maximum: 3 },
      'field field is an integer with 1 possible values',
    ],
    [
      'a union of two types',
      { anyOf: [{ type: 'boolean' }, { enum: ['a'] }] },
      'field field is a union of several types (anyOf)',
    ],
    [
      'a type list of two types',
      { type: ['string', 'integer'] },
      'field field is a union of several types (string, integer)',
    ],
    [
      'an integer or null',
      { anyOf: [{ type: 'integer', minimum: 1, maximum: 3 }, { type: 'null' }] },
      'field field is an integer or null',
    ],
    [
      'an object or null',
      { anyOf: [objectOf({ a: { type: 'boolean' } }), { type: 'null' }] },
      'field field is an object or null',
    ],
    [
      'multipleOf',
      { type: 'integer', minimum: 0, maximum: 10, multipleOf: 5 },
      'field field uses "multipleOf", a keyword the fast engine cannot honour',
    ],
    ['pattern beside an enum', { type: 'string', enum: ['a', 'b'], pattern: '^a' }, 'field field uses "pattern"'],
    ['minLength beside an enum', { type: 'string', enum: ['a', 'b'], minLength: 1 }, 'field field uses "minLength"'],
    ['format beside an enum', { type: 'string', enum: ['a', 'b'], format: 'email' }, 'field field uses "format"'],
    ['not', { type: 'boolean', not: { const: true } }, 'field field uses "not"'],
    [
      'an open additionalProperties schema',
      { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: { type: 'string' } },
      'field field accepts properties it does not list (additionalProperties)',
    ],
    [
      'additionalProperties true',
      { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: true },
      'field field accepts properties it does not list',
    ],
    [
      'patternProperties',
      { type: 'object', properties: { a: { type: 'boolean' } }, patternProperties: { '^x': { type: 'string' } } },
      'field field uses "patternProperties"',
    ],
    ['a free-form object (dict)', { type: 'object' }, 'field field is an object without properties'],
    ['any value', {}, 'field field accepts any value'],
    ['schema true', true, 'field field accepts any value'],
    [
      'allOf of two',
      { allOf: [{ type: 'boolean' }, { type: 'boolean' }] },
      'field field combines several schemas (allOf)',
    ],
    ['an external $ref', { $ref: 'https://example.com/s.json' }, 'field field refers to a schema outside the request'],
    [
      'a missing $ref',
      { $ref: '#/$defs/Nope' },
      'field field refers to "#/$defs/Nope", which the schema does not define',
    ],
    ['an enum of objects', { enum: [{ a: 1 }, { b: 2 }] }, 'field field has an enum of objects or arrays'],
    ['an empty option', { enum: ['', 'a'] }, 'field field has an option the fast engine cannot name: ""'],
    ['options that read alike', { enum: [1, '1'] }, 'field field has two options that read alike: "1"'],
  ])('%s', (_name, field, detail) => {
    expect(fieldIneligible(field)).toContain(detail);
  });

  it('a nested field is named by its dotted path', () => {
    expect(ineligible(objectOf({ merchant: objectOf({ name: { type: 'string' } }) }))).toBe(
      'field merchant.name is free text (a string without enum)',
    );
  });

  it('a recursive model', () => {
    const schema = {
      ...objectOf({ node: { $ref: '#/$defs/Node' } }),
      $defs: { Node: objectOf({ next: { $ref: '#/$defs/Node' } }) },
    };
    expect(ineligible(schema)).toContain('nests deeper than');
  });

  it('a union that refers to itself (A = A | null): ineligible, not a stack overflow', () => {
    const schema = {
      ...objectOf({ a: { $ref: '#/$defs/A' } }),
      $defs: { A: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } },
    };
    expect(ineligible(schema)).toBe('field a nests unions deeper than 16 levels (a union that refers to itself?)');
  });

  it('unions nested 10,000 deep: ineligible, not a stack overflow', () => {
    let field: unknown = { enum: ['x', 'y'] };
    for (let i = 0; i < 10_000; i++) field = { oneOf: [field] };
    expect(fieldIneligible(field)).toBe(
      'field field nests unions deeper than 16 levels (a union that refers to itself?)',
    );
  });

  it('a union in a union, as a generator may nest X | None, is still read', () => {
    const { leaves } = plan({
      tier: { anyOf: [{ anyOf: [{ enum: ['a', 'b'] }, { type: 'null' }] }, { type: 'null' }] },
    });
    expect(leaves[0]).toMatchObject({ kind: 'choice', options: [{ key: 'a' }, { key: 'b' }, { value: null }] });
  });

  it('a reference loop', () => {
    expect(ineligible({ ...objectOf({ a: { $ref: '#/$defs/A' } }), $defs: { A: { $ref: '#/$defs/A' } } })).toContain(
      'go round in a loop',
    );
  });

  it('a required property the schema does not describe', () => {
    expect(ineligible({ type: 'object', properties: { a: { type: 'boolean' } }, required: ['a', 'b'] })).toBe(
      'field (root) requires "b", which it does not describe',
    );
  });

  it('a root that is not an object, or has nothing to decide', () => {
    expect(ineligible({ enum: ['a', 'b'] })).toBe('the schema is not an object with properties');
    expect(ineligible(objectOf({ v: { const: 1 } }))).toBe(
      'the schema has no field to decide (every field is a constant)',
    );
  });

  it('a property name that cannot be a question id', () => {
    expect(ineligible({ type: 'object', properties: { ['__proto__']: { type: 'boolean' } } })).toContain(
      'cannot name: "__proto__"',
    );
    expect(ineligible(objectOf({ 'a.b': { type: 'boolean' }, a: objectOf({ b: { type: 'boolean' } }) }))).toContain(
      'field a.b is named twice',
    );
    expect(ineligible(objectOf({ ' ': { type: 'boolean' } }))).toBe(
      'field " " has a blank name, which the fast engine cannot ask by',
    );
  });

  // The router checks what it sends once, here: the pipeline is never asked what a typed request may not hold.
  it('more fields, options or blank options than a typed request may hold', () => {
    const fields = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, { type: 'boolean' }]));
    expect(ineligible(objectOf(fields))).toBe('the schema has 65 fields to decide (the fast engine takes at most 64)');
    expect(plan(Object.fromEntries(Object.entries(fields).slice(0, 64))).leaves).toHaveLength(64);
    const values = Array.from({ length: 257 }, (_, i) => `v${i}`);
    expect(fieldIneligible({ enum: values })).toBe('field field has 257 options (a choice takes at most 256)');
    expect(plan({ field: { enum: values.slice(0, 256) } }).leaves).toHaveLength(1);
    expect(fieldIneligible({ enum: ['a', '  '] })).toBe('field field has an option the fast engine cannot name: "  "');
  });
});
