'use strict';
// The shape-true generator (test-support/shape-model.js): the real models' parameter counts from the shape
// spec, and at a reduced size (a few MB) a folder the engine loads as it loads a real model, whose attention
// honours the padding mask, whose int8 graph is quantize_dynamic's pattern and whose tokenizer reads the
// bench's texts at the real token counts.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { onnx } = require('onnx-proto');
const ort = require('onnxruntime-node');
const { writeShapeModel, modelFileOf, parameterCount, parameterCounts } = require('../test-support/shape-model');
const { shapeSpec, matmulWeights, flopsOf } = require('../test-support/shapes');
const { INSTRUCTIONS, STATE, toolDescription, longToolDescription } = require('../test-support/bench-texts');
const { CrossEncoder } = require('../lib/cross-encoder');

const SMALL = { layers: 4, hidden: 32, heads: 2, intermediate: 48 };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-shape-test-'));
test.after(() => fs.rmSync(root, { recursive: true, force: true }));

function smallModel(shape, dtype) {
  return writeShapeModel(path.join(root, `${shape}-${dtype}`), { shape, dtype, overrides: SMALL }).dir;
}

async function withModel(shape, dtype, use) {
  const model = await CrossEncoder.load(smallModel(shape, dtype), { device: 'cpu' });
  try {
    const query = [...model.tokens(INSTRUCTIONS), ...model.tokens(JSON.stringify(STATE))];
    return await use(model, {
      short: { query, candidate: model.tokens(toolDescription(3)) },
      long: { query, candidate: model.tokens(longToolDescription(4)) },
    });
  } finally {
    await model.release();
  }
}

/**
 * One session run over the pairs padded to the longest, bypassing the engine's runs by length (which would
 * put a short and a long pair in runs of their own): the graph itself must mask the padding.
 */
async function runPadded(model, pairs) {
  const { inputs, dims } = model.encoder.padded(model.encoder.rows(pairs));
  const feeds = Object.fromEntries(
    model.session.inputNames.map((name) => [
      name,
      new ort.Tensor('int64', BigInt64Array.from(inputs[name], BigInt), dims),
    ]),
  );
  const output = (await model.session.run(feeds)).logits;
  return { dims, logits: Array.from(output.data) };
}

function opTypes(dir, dtype) {
  const model = onnx.ModelProto.decode(fs.readFileSync(path.join(dir, modelFileOf(dtype))));
  const counts = {};
  for (const node of model.graph.node) counts[node.opType] = (counts[node.opType] ?? 0) + 1;
  return { counts, model };
}

test('the full shapes have the real models’ parameter counts: 149.6M (gte-modernbert) and 22.7M (MiniLM-L6)', () => {
  assert.ok(Math.abs(parameterCount('gte-modernbert') - 149.6e6) <= 0.1e6, `${parameterCount('gte-modernbert')}`);
  assert.ok(Math.abs(parameterCount('minilm-l6') - 22.7e6) <= 0.1e6, `${parameterCount('minilm-l6')}`);
});

test('the FLOPs a decision is counted at read the weight matrices the graph has, and attention grows with L²', () => {
  for (const shape of ['gte-modernbert', 'minilm-l6']) {
    const spec = shapeSpec(shape);
    const { perLayer, perPair } = matmulWeights(spec);
    assert.equal(spec.layers * perLayer + perPair, parameterCounts(shape).matmulParameters, shape);
    const attention = (length) => 4 * length * length * spec.hidden * spec.layers;
    assert.equal(flopsOf(spec, 1, 100), 2 * (spec.layers * perLayer * 100 + perPair) + attention(100), shape);
    assert.equal(flopsOf(spec, 20, 79), 20 * flopsOf(spec, 1, 79), shape);
  }
  // gte at 20 short pairs (tools 0-9 read as 78 tokens, 10-19 as 79): 354.7 GFLOP, as RESULTS.md's table has it.
  const gte = shapeSpec('gte-modernbert');
  assert.equal(Math.round((flopsOf(gte, 10, 78) + flopsOf(gte, 10, 79)) / 1e8) / 10, 354.7);
});

for (const shape of ['gte-modernbert', 'minilm-l6']) {
  test(`${shape}: a pair alone and the same pair padded in a batch beside a long one get the same logit (float32)`, () =>
    withModel(shape, 'float32', async (model, { short, long }) => {
      const alone = await runPadded(model, [short]);
      const batch = await runPadded(model, [short, long]);
      assert.deepEqual(alone.dims, [1, 78]);
      assert.deepEqual(batch.dims, [2, 302], 'the short pair is padded from 78 to 302 tokens in the batch');
      assert.ok(Number.isFinite(alone.logits[0]));
      assert.ok(Math.abs(batch.logits[0] - alone.logits[0]) < 1e-4, `${batch.logits[0]} vs ${alone.logits[0]}`);
      const longAlone = await runPadded(model, [long]);
      assert.ok(Math.abs(batch.logits[1] - longAlone.logits[0]) < 1e-4, `${batch.logits[1]} vs ${longAlone.logits[0]}`);
      // Different pairs get logits far apart, so the 1e-4 above would show a mask that let padding through.
      assert.ok(Math.abs(alone.logits[0] - longAlone.logits[0]) > 1e-2, `${alone.logits[0]} vs ${longAlone.logits[0]}`);
    }));

  test(`${shape}: the int8 model is quantize_dynamic's layout and gives a finite logit per pair`, async () => {
    const { counts, model } = opTypes(smallModel(shape, 'int8'), 'int8');
    const linears = shape === 'gte-modernbert' ? 4 * SMALL.layers + 2 : 6 * SMALL.layers + 2;
    assert.equal(counts.MatMulInteger, linears);
    assert.equal(counts.DynamicQuantizeLinear, linears);
    // The only float MatMuls left are attention's two per layer, between activations, as quantize_dynamic leaves them.
    assert.equal(counts.MatMul, 2 * SMALL.layers);
    const weights = model.graph.initializer.filter((t) => t.dataType === onnx.TensorProto.DataType.INT8);
    assert.ok(weights.every((t) => t.rawData.length > 0 || t.dims.length === 0));
    await withModel(shape, 'int8', async (encoder, { short, long }) => {
      const { logits } = await runPadded(encoder, [short, long]);
      assert.equal(logits.length, 2);
      assert.ok(logits.every(Number.isFinite), `${logits}`);
    });
  });
}

test('the folder states the real vocabulary size and max length, and serve.js reads it as a model folder', async () => {
  const dir = smallModel('gte-modernbert', 'float32');
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  assert.equal(config.max_position_embeddings, 8192);
  const tokenizer = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
  assert.equal(Object.keys(tokenizer.model.vocab).length, 50368);
  assert.equal(tokenizer.model.vocab['[PAD]'], 50283, "ModernBERT's padding id");
  const model = await CrossEncoder.load(dir, { device: 'cpu' });
  assert.equal(model.maxLength, 8192);
  assert.deepEqual(model.session.inputNames.sort(), ['attention_mask', 'input_ids']);
  await model.release();
  const minilm = JSON.parse(fs.readFileSync(path.join(smallModel('minilm-l6', 'float32'), 'tokenizer.json'), 'utf8'));
  assert.equal(Object.keys(minilm.model.vocab).length, 30522);
});

test('the command line refuses an unknown shape or dtype with a clear message', () => {
  const script = path.join(__dirname, '..', 'test-support', 'shape-model.js');
  assert.throws(
    () => execFileSync(process.execPath, [script, path.join(root, 'bad'), '--shape', 'gpt'], { stdio: 'pipe' }),
    (error) => /unknown shape "gpt": one of gte-modernbert, minilm-l6/.test(String(error.stderr)),
  );
  assert.throws(
    () =>
      execFileSync(process.execPath, [script, path.join(root, 'bad'), '--shape', 'minilm-l6', '--dtype', 'fp16'], {
        stdio: 'pipe',
      }),
    (error) => /the dtype must be one of float32, int8/.test(String(error.stderr)),
  );
});
