'use strict';
// The engine's self-timing on the tiny model: the figures /health and time.js report are well formed and sane
// (never their size: the machine is busy), the budget stops it early and says so, and the advice comes only
// when a decision is far from System-1 speed, without the ways the engine already takes.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const path = require('node:path');
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker } = require('../lib/reranker');
const { timeDecisions, timingLines } = require('../lib/self-timing');
const { speedAdvice, SYSTEM1_SPEED_MS } = require('../lib/speed-advice');
const { tinyModelDir } = require('../test-support/server');

const TIME = path.resolve(__dirname, '..', 'time.js');

async function timed(options, modelOptions = {}) {
  const model = await CrossEncoder.load(tinyModelDir(modelOptions), { device: 'cpu' });
  try {
    return await timeDecisions(new Reranker(model), options);
  } finally {
    await model.release();
  }
}

function assertSane(timing) {
  const predicted = [5, 20, 90].map((n) => timing.predicted_ms[n]);
  for (const value of [...predicted, timing.per_candidate_ms, timing.measured_ms[1], timing.measured_ms[8]])
    assert.ok(Number.isFinite(value) && value > 0, `${value} in ${JSON.stringify(timing)}`);
  assert.ok(timing.fixed_ms >= 0);
  assert.ok(predicted[0] < predicted[1] && predicted[1] < predicted[2], JSON.stringify(timing.predicted_ms));
  assert.ok(!Number.isNaN(Date.parse(timing.measured_at)));
  assert.ok(Number.isInteger(timing.runs) && timing.runs >= 1);
}

test('times decisions of 1 and 8 candidates and predicts 5, 20 and 90, saying they are predictions', async () => {
  const timing = await timed();
  assert.deepEqual(Object.keys(timing).sort(), [
    'advice',
    'budget_ms',
    'fixed_ms',
    'how',
    'measured_at',
    'measured_ms',
    'per_candidate_ms',
    'predicted_ms',
    'runs',
    'slow',
    'stopped_early',
    'system1_speed_ms',
  ]);
  assertSane(timing);
  assert.deepEqual(Object.keys(timing.predicted_ms), ['5', '20', '90']);
  assert.match(timing.how, /^predictions from a measured cost per candidate: .* each of 1 and 8 candidates/);
  assert.equal(timing.system1_speed_ms, SYSTEM1_SPEED_MS);
  assert.equal(timing.slow, timing.predicted_ms[20] > SYSTEM1_SPEED_MS);
  assert.deepEqual(timing.advice, timing.slow ? timing.advice : []);
});

test('on a slow machine it stops at the budget after one run of each, and says the figures are rougher', async () => {
  const timing = await timed({ budgetMs: 0 });
  assertSane(timing);
  assert.equal(timing.runs, 1);
  assert.equal(timing.stopped_early, true);
  assert.match(timing.how, /the median of 1 decision each .*\(stopped at the 0 s budget, so rougher than 5 runs\)/);
});

test('the advice: none within System-1 speed; beyond it every way, less those the engine already takes', () => {
  assert.deepEqual(speedAdvice(SYSTEM1_SPEED_MS, { onnxFile: '/m/onnx/model.onnx', device: 'cpu' }), []);
  const float32 = speedAdvice(1729, { onnxFile: '/m/onnx/model.onnx', device: 'cpu' });
  assert.deepEqual(
    float32.map((way) => way.what),
    ['the int8 export', 'a smaller cross-encoder', 'a GPU', 'a hosted engine'],
  );
  assert.match(float32[0].how, /system1 engine pull reranker --quantized/);
  assert.match(float32[1].how, /cross-encoder\/ms-marco-MiniLM-L-6-v2/);
  assert.match(float32[2].how, /--device cuda/);
  for (const way of float32) assert.match(way.cost, /\d+ (ms|s)\b.*\(.*(RESULTS\.md|naga study)/);
  const int8OnGpu = speedAdvice(900, { onnxFile: '/m/onnx/model_quantized.onnx', device: 'cuda' });
  assert.deepEqual(
    int8OnGpu.map((way) => way.what),
    ['a smaller cross-encoder', 'a hosted engine'],
  );
  // The human lines carry each way and its cost.
  const lines = timingLines({ ...timingStub(), slow: true, advice: float32 });
  assert.match(lines[1], /^That is over 500 ms for 20 candidates, far from System-1 speed/);
  assert.equal(lines.length, 2 + float32.length);
});

function timingStub() {
  return {
    predicted_ms: { 5: 435, 20: 1730, 90: 7760 },
    how: 'predictions from a measured cost per candidate',
    system1_speed_ms: SYSTEM1_SPEED_MS,
  };
}

function runTime(args) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TIME, ...args],
      { env: { PATH: process.env.PATH }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

test('time.js --json prints the timing object alone on stdout; without it, the figures in words', async () => {
  const model = tinyModelDir();
  const json = await runTime(['--model', model, '--device', 'cpu', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const timing = JSON.parse(json.stdout);
  assertSane(timing);
  assert.equal(timing.device, 'cpu');
  assert.equal(timing.model, path.basename(model));
  const words = await runTime(['--model', model, '--device', 'cpu']);
  assert.equal(words.code, 0, words.stderr);
  assert.match(
    words.stdout,
    /^tiny-\w+ on cpu: a decision of 5 candidates takes ~[\d.,]+ ms, 20 ~[\d.,]+ ms, 90 ~[\d.,]+ ms/,
  );
});

test('time.js refuses a missing model folder in one line, with exit 1', async () => {
  const missing = path.join(tinyModelDir(), 'nothing-here');
  assert.deepEqual(await runTime(['--model', missing, '--json']), {
    code: 1,
    stdout: '',
    stderr: `time: the model folder ${missing} does not exist\n`,
  });
});
