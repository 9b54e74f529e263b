'use strict';
// A candidate longer than --max-candidate-tokens is cut to its first N tokens before it is paired.
const test = require('node:test');
const assert = require('node:assert/strict');
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker, DEFAULT_MAX_CANDIDATE_TOKENS } = require('../lib/reranker');
const { tinyModelDir } = require('../test-support/server');
const { expectedLogit } = require('../test-support/tiny-model');

// 8 tokens (one a word in the tiny vocabulary), then words the tiny model scores high: cut at 8, they are gone.
const HEAD = 'payments and packages for the customer today .';
const LONG = `${HEAD} ${'urgent refunds '.repeat(60)}`;

function decision(longText) {
  return {
    state: 'I was charged twice',
    questions: {
      tool: {
        type: 'choice',
        instructions: 'Pick one tool for this task.',
        criteria: { long: longText, billing: 'billing', shipping: 'shipping' },
      },
      level: { type: 'score', instructions: 'How urgent is it?', criteria: ['can wait', longText] },
    },
  };
}

let model;
test.before(async () => {
  model = await CrossEncoder.load(tinyModelDir({ maxLength: 512 }), { device: 'cpu' });
});
test.after(() => model.release());

test("a long candidate's answer is that of its first N tokens", async () => {
  assert.equal(model.tokens(HEAD).length, 8);
  const cut = await new Reranker(model, { maxCandidateTokens: 8 }).answer(decision(LONG));
  const head = await new Reranker(model, { maxCandidateTokens: 8 }).answer(decision(HEAD));
  // All but the score's legend, which names the levels as sent.
  assert.equal(cut.reply.answers.level.legend[1], LONG);
  const scored = ({ tool, level: { legend: _legend, ...level } }) => ({ tool, level });
  assert.deepEqual(scored(cut.reply.answers), scored(head.reply.answers));
  assert.equal(cut.reply.usage.input_tokens, head.reply.usage.input_tokens);
  // The default keeps the whole candidate: its "urgent refunds" win the choice and the score.
  const whole = await new Reranker(model).answer(decision(LONG));
  assert.equal(whole.reply.answers.tool.choice, 'long');
  assert.notEqual(cut.reply.answers.tool.choice, 'long');
  assert.ok(whole.reply.answers.level.score > cut.reply.answers.level.score);
});

test('the default is 512 tokens, and a candidate that fits is not cut', async () => {
  assert.equal(DEFAULT_MAX_CANDIDATE_TOKENS, 512);
  assert.equal(new Reranker(model).maxCandidateTokens, 512);
  const fits = await new Reranker(model, { maxCandidateTokens: 8 }).answer(decision(HEAD));
  const uncut = await new Reranker(model).answer(decision(HEAD));
  assert.deepEqual(fits.reply, uncut.reply);
});

test("the pair's longest-first truncation still applies after the cut", async () => {
  const short = await CrossEncoder.load(tinyModelDir({ maxLength: 16 }), { device: 'cpu' });
  try {
    const reply = await new Reranker(short, { maxCandidateTokens: 10 }).answer({
      state: 'charged twice twice twice twice twice twice twice twice twice twice',
      questions: { q: { type: 'choice', instructions: 'Pick', criteria: { long: LONG, billing: 'billing' } } },
    });
    // 13 tokens a pair besides [CLS] [SEP] [SEP]: the long candidate, cut to 10, and the 12-token query
    // share them 6 and 7; "billing" keeps its 1 and the query 12.
    const query = ['pick', 'charged', ...Array(10).fill('twice')];
    const long = expectedLogit(query.slice(0, 7), model.tokens(LONG).slice(0, 6));
    const billing = expectedLogit(query, ['billing']);
    const p = Math.exp(long) / (Math.exp(long) + Math.exp(billing));
    assert.ok(Math.abs(reply.reply.answers.q.probabilities.long - p) < 1e-5);
    assert.equal(reply.reply.usage.input_tokens, 16 + 16);
  } finally {
    await short.release();
  }
});
