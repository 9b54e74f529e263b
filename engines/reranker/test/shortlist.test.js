'use strict';
// The optional shortlist (--shortlist K): BM25 picks which options of a long choice the cross-encoder sees,
// and the answer still covers every option.
const test = require('node:test');
const assert = require('node:assert/strict');
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker } = require('../lib/reranker');
const { Shortlist } = require('../lib/shortlist');
const { tinyModelDir } = require('../test-support/server');

// Ten tools; the request is about being charged twice and wanting a refund.
const TOOLS = {
  list_parcels: 'lists the packages that are on their way',
  track_parcel: 'where a package is now',
  refundOrder: 'gives the money back for an order',
  open_ticket: 'opens a support ticket for the team',
  billing_history: 'the charges on the account, with each payment',
  change_address: 'changes where packages are sent',
  cancel_order: 'cancels an order before it ships',
  duplicate_charges: 'finds a customer charged twice for one order and refunds the extra payment',
  weather: 'the weather today',
  reset_password: 'sends a link to reset the password',
};
const STATE = { message: 'I was charged twice for one order, refund me' };
const INSTRUCTIONS = 'Which tool should handle this?';

function question(criteria = TOOLS) {
  return { type: 'choice', instructions: INSTRUCTIONS, criteria };
}

/** A question as readRequest gives it to the shortlist. */
function readQuestion(criteria) {
  return {
    id: 'tool',
    type: 'choice',
    instructions: INSTRUCTIONS,
    candidates: Object.entries(criteria).map(([key, text]) => ({ key, text: text ?? key })),
  };
}

let model;
let pairsRun = 0;
test.before(async () => {
  model = await CrossEncoder.load(tinyModelDir({ maxLength: 128 }), { device: 'cpu' });
  const score = model.score.bind(model);
  model.score = (pairs) => ((pairsRun += pairs.length), score(pairs));
});
test.after(() => model.release());

test('BM25 shortlists the options whose names and descriptions share the request words, in the order sent', () => {
  const picked = new Shortlist(3, 128).pick(readQuestion(TOOLS), JSON.stringify(STATE));
  const keys = Object.keys(TOOLS);
  // duplicate_charges shares "charged", "twice", "for", "one" and "order" with the request; refundOrder
  // "refund" (its camelCase name split), "order" and "for"; cancel_order "order", in its name and description.
  assert.deepEqual(
    picked.map((i) => keys[i]),
    ['refundOrder', 'cancel_order', 'duplicate_charges'],
  );
  // No shared word at all: the first K, as sent.
  const none = new Shortlist(2, 128).pick(readQuestion({ a: 'x', b: 'y', c: 'z' }), 'nothing alike');
  assert.deepEqual(none, [0, 1]);
});

test('the answer covers every option: the seen ones as if asked alone, the rest 0, summing to 1', async () => {
  const before = pairsRun;
  const { reply, pairs } = await new Reranker(model, { shortlist: 3 }).answer({
    state: STATE,
    questions: { tool: question() },
  });
  assert.equal(pairs, 3);
  assert.equal(pairsRun - before, 3);
  const answer = reply.answers.tool;
  assert.deepEqual(Object.keys(answer), ['type', 'choice', 'probabilities', 'confidence']);
  assert.deepEqual(Object.keys(answer.probabilities), Object.keys(TOOLS));
  const sum = Object.values(answer.probabilities).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9, `the probabilities sum to ${sum}`);
  const seen = ['refundOrder', 'cancel_order', 'duplicate_charges'];
  for (const [key, p] of Object.entries(answer.probabilities)) {
    if (seen.includes(key)) assert.ok(p > 0, key);
    else assert.equal(p, 0, key);
  }
  // The seen options' probabilities, the choice and the confidence are those of a choice over them alone: the
  // confidence does not count the seven options the model never read.
  const alone = await new Reranker(model).answer({
    state: STATE,
    questions: { tool: question(Object.fromEntries(seen.map((key) => [key, TOOLS[key]]))) },
  });
  const expected = alone.reply.answers.tool;
  assert.equal(answer.choice, expected.choice);
  assert.equal(answer.confidence, expected.confidence);
  for (const key of seen) assert.equal(answer.probabilities[key], expected.probabilities[key], key);
  assert.equal(reply.usage.input_tokens, alone.reply.usage.input_tokens);
});

test('yes/no and score questions, and choices of K options or fewer, are never shortlisted', async () => {
  const body = {
    state: STATE,
    questions: {
      urgency: {
        type: 'score',
        instructions: 'How urgent is it?',
        criteria: ['can wait', 'this week', 'today', 'within the hour', 'urgent now'],
      },
      angry: { type: 'noul', instructions: 'Is the customer angry?', criteria: { true: 'angry', false: 'calm' } },
      few: question({ billing: 'payments and refunds', shipping: 'packages' }),
      all: question(),
    },
  };
  const unlisted = await new Reranker(model).answer(body);
  for (const k of [2, Object.keys(TOOLS).length, 256]) {
    const listed = await new Reranker(model, { shortlist: k }).answer(body);
    const { all, ...rest } = listed.reply.answers;
    const { all: unlistedAll, ...unlistedRest } = unlisted.reply.answers;
    assert.deepEqual(rest, unlistedRest, `K = ${k}`);
    // K at least the options: identical to no shortlist; below, only the 10 tools' choice is cut.
    if (k >= Object.keys(TOOLS).length) assert.deepEqual(listed.reply, unlisted.reply, `K = ${k}`);
    else {
      assert.notDeepEqual(all, unlistedAll);
      assert.equal(listed.pairs, unlisted.pairs - Object.keys(TOOLS).length + k);
    }
  }
});

test('off by default: every option is scored', async () => {
  const reranker = new Reranker(model);
  assert.equal(reranker.shortlist, undefined);
  const { pairs, reply } = await reranker.answer({ state: STATE, questions: { tool: question() } });
  assert.equal(pairs, Object.keys(TOOLS).length);
  assert.ok(Object.values(reply.answers.tool.probabilities).every((p) => p > 0));
});

test("an option's word counts are worked out once and reused while its text comes back", async () => {
  const reranker = new Reranker(model, { shortlist: 3 });
  const counted = [];
  const count = reranker.shortlist.documents.tokenize;
  reranker.shortlist.documents.tokenize = (text) => (counted.push(text), count(text));
  const body = { state: STATE, questions: { tool: question() } };
  const first = await reranker.answer(body);
  assert.equal(counted.length, Object.keys(TOOLS).length);
  const second = await reranker.answer({ ...body, state: { message: 'charged twice again' } });
  assert.equal(counted.length, Object.keys(TOOLS).length);
  assert.deepEqual(
    Object.keys(second.reply.answers.tool.probabilities),
    Object.keys(first.reply.answers.tool.probabilities),
  );
});
