'use strict';
// The real loading, tokenising, batching and scoring, end to end over HTTP, on the tiny model: every
// expected figure is worked out here from token lists written by hand and the model's score table.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startServer, request, tinyModelDir } = require('../test-support/server');
const { expectedLogit } = require('../test-support/tiny-model');
const { CrossEncoder } = require('../lib/cross-encoder');

function softmax(logits) {
  const exps = logits.map(Math.exp);
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

function assertClose(actual, expected, what) {
  assert.ok(Math.abs(actual - expected) < 1e-5, `${what}: ${actual} is not ${expected}`);
}

// '{"ticket":"I was charged twice"}' through BERT's lower-casing and punctuation split
const STATE = { ticket: 'I was charged twice' };
const STATE_TOKENS = ['{', '"', 'ticket', '"', ':', '"', 'i', 'was', 'charged', 'twice', '"', '}'];
const ROUTE = {
  type: 'choice',
  instructions: 'Which team should handle this?',
  criteria: { billing: 'payments and refunds', shipping: 'packages', technical: null },
};
const ROUTE_QUERY = ['which', 'team', 'should', 'handle', 'this', '?', ...STATE_TOKENS];
const ROUTE_CANDIDATES = [['payments', 'and', 'refund', '##s'], ['packages'], ['technical']];

let server;
test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('a choice is the softmax of the pair logits over its options, the longest (most padded-against) option winning', async () => {
  const reply = await request(server.port, { body: { state: STATE, questions: { route: ROUTE } } });
  assert.equal(reply.status, 200);
  const expected = softmax(ROUTE_CANDIDATES.map((candidate) => expectedLogit(ROUTE_QUERY, candidate)));
  const answer = reply.body.answers.route;
  assert.deepEqual(Object.keys(answer), ['type', 'choice', 'probabilities', 'confidence']);
  assert.equal(answer.choice, 'billing');
  assert.deepEqual(Object.keys(answer.probabilities), ['billing', 'shipping', 'technical']);
  ['billing', 'shipping', 'technical'].forEach((key, i) => assertClose(answer.probabilities[key], expected[i], key));
  assertClose(answer.confidence, (3 * Math.max(...expected) - 1) / 2, 'confidence');
  assert.equal(reply.body.model, path.basename(server.model.folder));
  assert.deepEqual(reply.body.usage, {
    input_tokens: ROUTE_CANDIDATES.reduce((sum, candidate) => sum + 3 + ROUTE_QUERY.length + candidate.length, 0),
    output_tokens: 0,
  });
});

test('pairs of similar length, over all the questions of a request, go in one model run, and answers keep the order sent', async () => {
  const before = server.runs();
  const reply = await request(server.port, {
    body: {
      state: STATE,
      questions: {
        urgency: { type: 'score', instructions: 'How urgent is it?', criteria: ['can wait', 'today', 'urgent'] },
        route: ROUTE,
        angry: { type: 'noul', instructions: 'Is the customer angry?' },
        triage: { type: 'noul', instructions: 'Is the customer angry?', criteria: { true: 'urgent', false: 'later' } },
      },
    },
  });
  assert.equal(reply.status, 200);
  assert.equal(server.runs() - before, 1);
  assert.deepEqual(Object.keys(reply.body), ['model', 'answers', 'usage']);
  assert.deepEqual(Object.keys(reply.body.answers), ['urgency', 'route', 'angry', 'triage']);

  const urgencyQuery = ['how', 'urgent', 'is', 'it', '?', ...STATE_TOKENS];
  const levels = softmax(
    [['can', 'wait'], ['today'], ['urgent']].map((candidate) => expectedLogit(urgencyQuery, candidate)),
  );
  const urgency = reply.body.answers.urgency;
  assert.deepEqual(Object.keys(urgency), ['type', 'score', 'legend', 'probabilities', 'confidence']);
  assert.deepEqual(urgency.legend, { 0: 'can wait', 1: 'today', 2: 'urgent' });
  levels.forEach((p, i) => assertClose(urgency.probabilities[String(i)], p, `level ${i}`));
  assertClose(urgency.score, levels[1] + 2 * levels[2], 'score');
  const mode = levels.indexOf(Math.max(...levels));
  const spread = levels.reduce((sum, p, i) => sum + p * Math.abs(i - mode), 0);
  const uniform = [0, 1, 2].reduce((sum, i) => sum + Math.abs(i - mode), 0) / 3;
  assertClose(urgency.confidence, Math.max(0, 1 - spread / uniform), 'score confidence');

  const angryQuery = ['is', 'the', 'customer', 'angry', '?', ...STATE_TOKENS];
  // No criteria: "yes" against "no"; with criteria, their descriptions.
  assert.deepEqual(Object.keys(reply.body.answers.angry), ['type', 'noul']);
  assertClose(
    reply.body.answers.angry.noul,
    softmax([expectedLogit(angryQuery, ['yes']), expectedLogit(angryQuery, ['no'])])[0],
    'noul',
  );
  assertClose(
    reply.body.answers.triage.noul,
    softmax([expectedLogit(angryQuery, ['urgent']), expectedLogit(angryQuery, ['later'])])[0],
    'noul with criteria',
  );
});

test('a pair longer than the model takes loses the tail of its longer side (the state), not the question', async () => {
  const short = await startServer({ model: { maxLength: 16 } });
  try {
    const reply = await request(short.port, {
      body: {
        state: 'I was twice twice twice twice charged twice twice twice twice twice',
        questions: {
          refund: {
            type: 'choice',
            instructions: 'Pick one.',
            criteria: { short: 'refunds', long: 'payments and refunds' },
          },
        },
      },
    });
    assert.equal(reply.status, 200);
    // 16 tokens less [CLS] [SEP] [SEP] leave 13: each candidate keeps its tokens (2 and 4), the query 11 and 9,
    // so "charged" (query token 9) counts beside the short candidate only, and "pick" (token 0) beside both.
    const query = [
      'pick',
      'one',
      '.',
      'i',
      'was',
      'twice',
      'twice',
      'twice',
      'twice',
      'charged',
      'twice',
      'twice',
      'twice',
      'twice',
      'twice',
    ];
    const expected = softmax([
      expectedLogit(query.slice(0, 11), ['refund', '##s']),
      expectedLogit(query.slice(0, 9), ['payments', 'and', 'refund', '##s']),
    ]);
    assertClose(reply.body.answers.refund.probabilities.short, expected[0], 'short');
    assert.equal(reply.body.usage.input_tokens, 16 + 16);
  } finally {
    await short.close();
  }
});

test('a Hub-layout export (onnx/model.onnx) without token_type_ids is fed only the inputs it declares', async () => {
  const hub = await startServer({ model: { layout: 'onnx', tokenTypes: false } });
  try {
    const reply = await request(hub.port, { body: { state: STATE, questions: { route: ROUTE } } });
    assert.equal(reply.status, 200);
    const expected = softmax(
      ROUTE_CANDIDATES.map((candidate) => expectedLogit(ROUTE_QUERY, candidate, { tokenTypes: false })),
    );
    ['billing', 'shipping', 'technical'].forEach((key, i) =>
      assertClose(reply.body.answers.route.probabilities[key], expected[i], key),
    );
  } finally {
    await hub.close();
  }
});

test("the Hub's int8 export (onnx/model_quantized.onnx, weights behind DequantizeLinear) loads and answers as the float32 one", async () => {
  const quantized = await startServer({ model: { layout: 'onnx', quantized: true } });
  try {
    assert.equal(
      path.relative(quantized.model.folder, quantized.model.onnxFile),
      path.join('onnx', 'model_quantized.onnx'),
    );
    const reply = await request(quantized.port, { body: { state: STATE, questions: { route: ROUTE } } });
    assert.equal(reply.status, 200);
    const expected = softmax(ROUTE_CANDIDATES.map((candidate) => expectedLogit(ROUTE_QUERY, candidate)));
    ['billing', 'shipping', 'technical'].forEach((key, i) =>
      assertClose(reply.body.answers.route.probabilities[key], expected[i], key),
    );
  } finally {
    await quantized.close();
  }
});

test('a folder with both exports loads the float32 one', async () => {
  const both = tinyModelDir({ layout: 'onnx' });
  fs.writeFileSync(path.join(both, 'onnx', 'model_quantized.onnx'), 'not a model: loading it would fail');
  const model = await CrossEncoder.load(both, { device: 'cpu' });
  try {
    assert.equal(model.onnxFile, path.join(both, 'onnx', 'model.onnx'));
  } finally {
    await model.release();
  }
});

test('a two-label classifier is read as the log-odds of its "relevant" label (l1 - l0)', async () => {
  const twoLabels = await startServer({ model: { twoLabels: true } });
  try {
    const reply = await request(twoLabels.port, { body: { state: STATE, questions: { route: ROUTE } } });
    const expected = softmax(ROUTE_CANDIDATES.map((candidate) => 2 * expectedLogit(ROUTE_QUERY, candidate)));
    ['billing', 'shipping', 'technical'].forEach((key, i) =>
      assertClose(reply.body.answers.route.probabilities[key], expected[i], key),
    );
  } finally {
    await twoLabels.close();
  }
});

test('--max-length lowers the model length, and never raises it', async () => {
  assert.equal(
    (await CrossEncoder.load(tinyModelDir({ maxLength: 64 }), { device: 'cpu', maxLength: 32 })).maxLength,
    32,
  );
  assert.equal(
    (await CrossEncoder.load(tinyModelDir({ maxLength: 64 }), { device: 'cpu', maxLength: 4096 })).maxLength,
    64,
  );
});

test('a folder that is not a usable cross-encoder is refused at load, saying what is wrong', async () => {
  await assert.rejects(
    CrossEncoder.load(path.join(tinyModelDir(), 'nowhere')),
    /the model folder .*nowhere does not exist/,
  );

  const noOnnx = tinyModelDir();
  fs.rmSync(path.join(noOnnx, 'model.onnx'));
  await assert.rejects(
    CrossEncoder.load(noOnnx),
    /has no model\.onnx, onnx\/model\.onnx nor onnx\/model_quantized\.onnx: pull one \(system1 engine pull reranker\)/,
  );

  const noTokenizer = tinyModelDir();
  fs.rmSync(path.join(noTokenizer, 'tokenizer.json'));
  await assert.rejects(CrossEncoder.load(noTokenizer), /tokenizer\.json is missing/);

  const badConfig = tinyModelDir();
  fs.writeFileSync(path.join(badConfig, 'config.json'), '{ not json');
  await assert.rejects(CrossEncoder.load(badConfig), /config\.json is not valid JSON/);

  const notOnnx = tinyModelDir();
  fs.writeFileSync(path.join(notOnnx, 'model.onnx'), 'not a model');
  await assert.rejects(CrossEncoder.load(notOnnx, { device: 'cpu' }), /model\.onnx could not be loaded by onnxruntime/);

  await assert.rejects(
    CrossEncoder.load(tinyModelDir({ outputType: 'float64' }), { device: 'cpu' }),
    /output is float64, not float32/,
  );
  await assert.rejects(
    CrossEncoder.load(tinyModelDir(), { device: 'gpu' }),
    /the device must be one of auto, cpu, cuda/,
  );
});

test('a 1 MB state is cut before it is tokenised: the same answer as the state cut short, and /health answers meanwhile', async () => {
  const words = 'i was charged twice for the ticket ';
  const long = words.repeat(Math.ceil(1_000_000 / words.length));
  const body = (state) => ({ state, questions: { route: ROUTE } });
  const short = await request(server.port, { body: body(long.slice(0, 400)) });
  assert.equal(short.status, 200);

  const tokenizer = server.model.encoder.tokenizer;
  const tokenize = tokenizer.tokenize;
  const read = [];
  tokenizer.tokenize = (text, options) => (read.push(text.length), tokenize.call(tokenizer, text, options));
  const run = server.model.session.run;
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  server.model.session.run = (...args) => gate.then(() => run.apply(server.model.session, args));
  try {
    const decision = request(server.port, { body: body(long) });
    while (server.reranker.queued === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // The decision waits on its model run; the server still answers.
    assert.equal((await request(server.port, { method: 'GET', path: '/health' })).status, 200);
    release();
    const reply = await decision;
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, short.body);
  } finally {
    tokenizer.tokenize = tokenize;
    server.model.session.run = run;
  }
  // The tiny model reads 64 tokens a pair and its longest word has 9 characters: 576 characters of the state.
  assert.ok(read.length > 0 && Math.max(...read) <= 64 * 9, `texts of ${Math.max(...read)} characters were tokenised`);
});
