'use strict';
/**
 * This machine's matrix-multiply rate as onnxruntime-node reaches it: a chain of MatMuls (float32), or of
 * quantize_dynamic's int8 pattern (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul, which onnxruntime
 * fuses into DynamicQuantizeMatMul), of a decision's size (1,600 token rows, about 20 pairs of 79 tokens, by a
 * model's 768 x 768 weights), in a session opened as the engine opens its model. A model run can go no faster
 * than its multiply-adds at this rate: the floor a decision's time is compared with.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ort = require('onnxruntime-node');
const { GraphBuilder, FLOAT } = require('./graph-builder');
const { writeModel } = require('./onnx-writer');

const SIZE = { rows: 1600, width: 768, chain: 8 };

function chainModel(file, dtype, { rows, width, chain }) {
  const g = new GraphBuilder({ dtype });
  let x = 'x';
  for (let i = 0; i < chain; i++) x = g.linear(x, `chain.${i}`, [width, width]);
  g.op('Identity', [x], { named: 'y' });
  const tensor = (name) => ({
    name,
    type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimValue: rows }, { dimValue: width }] } } },
  });
  writeModel(
    file,
    {
      irVersion: 8,
      producerName: 'system1-reranker-matmul-floor',
      opsetImport: [{ domain: '', version: 17 }],
      graph: { name: `matmul-chain-${dtype}`, node: g.nodes, input: [tensor('x')], output: [tensor('y')] },
    },
    g.initializers,
  );
}

/**
 * GFLOP/s (float32) or GOP/s (int8) of the chain: 2·rows·width² per link, over the fastest of `rounds` runs
 * after a warm-up (the fastest: the rate the hardware gives when nothing else takes the cores).
 */
async function matmulFloor(dtype, { rounds = 7, size = SIZE } = {}) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-floor-'));
  try {
    const file = path.join(scratch, 'chain.onnx');
    chainModel(file, dtype, size);
    const session = await ort.InferenceSession.create(file, {
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
    });
    const input = new Float32Array(size.rows * size.width).map((_, i) => Math.sin(i));
    const feeds = { x: new ort.Tensor('float32', input, [size.rows, size.width]) };
    await session.run(feeds);
    let best = Infinity;
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      await session.run(feeds);
      best = Math.min(best, performance.now() - started);
    }
    await session.release();
    const flops = 2 * size.rows * size.width * size.width * size.chain;
    return {
      dtype,
      gflops_per_second: Number((flops / (best / 1000) / 1e9).toFixed(1)),
      best_ms: Number(best.toFixed(2)),
      ...size,
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

module.exports = { matmulFloor };
