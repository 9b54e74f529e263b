'use strict';
// Pairs run in runs of similar length (lib/length-batches.js): the answers must be those of scoring each pair
// alone, through Reranker.answer on the tiny model, over requests whose pairs differ a lot in length.
const test = require('node:test');
const assert = require('node:assert/strict');
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker } = require('../lib/reranker');
const { tinyModelDir } = require('../test-support/server');

const LONG = 'urgent refunds for the customer who was charged twice, '.repeat(30);
const SHORT_TOOLS = ['billing', 'shipping', 'technical', 'refunds', 'packages', 'payments and refunds', 'urgent'];

/** A choice over `count` candidates, all short but the one at `longAt` (about 360 tokens). */
function choice(count, longAt) {
  const criteria = {};
  for (let i = 0; i < count; i++) criteria[`tool_${i}`] = i === longAt ? LONG : SHORT_TOOLS[i % SHORT_TOOLS.length];
  return { type: 'choice', instructions: 'Pick one tool for this task.', criteria };
}

const REQUESTS = [
  { state: { ticket: 'I was charged twice' }, questions: { tool: choice(20, 19) } },
  {
    state: 'the customer is angry: charged twice, refunds today',
    questions: {
      first: choice(12, 0),
      urgency: { type: 'score', instructions: 'How urgent is it?', criteria: ['can wait', 'today', LONG] },
      angry: { type: 'noul', instructions: 'Is the customer angry?', criteria: { true: LONG, false: 'later' } },
      plain: { type: 'noul', instructions: 'Is it urgent?' },
      middle: choice(7, 3),
    },
  },
];
// A state long enough that every pair is cut to the model's length: one run, cut as each pair alone is cut.
const CUT = [
  {
    state: 'charged twice '.repeat(400),
    questions: { tool: choice(5, 2), yes: { type: 'noul', instructions: 'Pick?' } },
  },
];

/** Each number in `actual` within 1e-5 of `expected`'s, everything else equal. */
function assertSameAnswers(actual, expected, where) {
  if (typeof expected === 'number') {
    assert.ok(Math.abs(actual - expected) < 1e-5, `${where}: ${actual} is not ${expected}`);
    return;
  }
  if (typeof expected !== 'object' || expected === null) {
    assert.equal(actual, expected, where);
    return;
  }
  assert.deepEqual(Object.keys(actual), Object.keys(expected), where);
  for (const key of Object.keys(expected)) assertSameAnswers(actual[key], expected[key], `${where}.${key}`);
}

let model;
/** The padded length of each session run since the last reset. */
let runLengths = [];
test.before(async () => {
  model = await CrossEncoder.load(tinyModelDir({ maxLength: 512 }), { device: 'cpu' });
  const run = model.session.run.bind(model.session);
  model.session.run = (feeds) => (runLengths.push(feeds.input_ids.dims[1]), run(feeds));
});
test.after(() => model.release());

test('runs by length give the answers of one pair at a time, to 1e-5, with the real token count', async () => {
  const batched = new Reranker(model);
  // The same model, asked about each pair in a session run of its own.
  const alone = new Reranker({
    name: model.name,
    tokens: (text) => model.tokens(text),
    score: async (pairs) => {
      const each = [];
      for (const pair of pairs) each.push(await model.score([pair]));
      return { logits: each.map(({ logits }) => logits[0]), tokens: each.reduce((sum, { tokens }) => sum + tokens, 0) };
    },
  });
  for (const [n, body] of [...REQUESTS, ...CUT].entries()) {
    runLengths = [];
    const got = await batched.answer(body);
    const lengths = runLengths;
    runLengths = [];
    const want = await alone.answer(body);
    assert.equal(runLengths.length, got.pairs, `request ${n}: one run a pair for the reference`);
    assertSameAnswers(got.reply, want.reply, `request ${n}`);
    if (n >= REQUESTS.length) continue;
    // Not every pair padded to the longest: the short pairs ran apart from the long ones, in fewer runs than pairs.
    assert.ok(lengths.length > 1 && lengths.length < got.pairs, `request ${n}: ${lengths.length} runs`);
    assert.ok(Math.min(...lengths) < Math.max(...lengths) / 4, `request ${n}: runs of ${lengths.join(', ')} tokens`);
    // The usage counts the tokens read, not the padding.
    assert.ok(got.reply.usage.input_tokens < got.pairs * Math.max(...lengths));
  }
});

test('the long pair of 19 short ones runs alone, and its answer lands on its own key', async () => {
  runLengths = [];
  const { reply } = await new Reranker(model).answer(REQUESTS[0]);
  assert.equal(runLengths.length, 2);
  const [short, long] = [...runLengths].sort((a, b) => a - b);
  assert.ok(long > 4 * short, `runs of ${short} and ${long} tokens`);
  // The long candidate says "urgent refunds" again and again: the tiny model scores it highest.
  assert.equal(reply.answers.tool.choice, 'tool_19');
});
