'use strict';
/**
 * Builds an ONNX graph node by node for test-support/shape-model.js: ops with fresh output names, small
 * constants, and weights filled from a seeded PRNG when the writer reaches them (random values: a run's speed
 * does not depend on them). `linear` is a MatMul in float32, or in int8 the pattern onnxruntime's
 * quantize_dynamic writes (per-tensor symmetric int8 weights, uint8 activations quantized at run time):
 *
 *   DynamicQuantizeLinear(x) -> MatMulInteger(x_q, W_q, x_zero, W_zero) -> Cast(float) -> Mul(x_scale · W_scale)
 */
const os = require('node:os');
const { onnx } = require('onnx-proto');

const { FLOAT, INT64, INT8 } = onnx.TensorProto.DataType;
const ATTRIBUTE = onnx.AttributeProto.AttributeType;

const int = (name, i) => ({ name, type: ATTRIBUTE.INT, i });
const ints = (name, list) => ({ name, type: ATTRIBUTE.INTS, ints: list });
const float = (name, f) => ({ name, type: ATTRIBUTE.FLOAT, f });

/**
 * Embeddings are drawn at a trained model's scale (std 0.02), a linear layer's weights as PyTorch initialises
 * them (uniform within ±1/√inputs): activations stay of order 1, far from overflow and denormals, and a pair's
 * logit depends on its tokens enough for a test to see a change.
 */
const EMBEDDING_RANGE = 0.02 * Math.sqrt(3);
const linearRange = (inputs) => 1 / Math.sqrt(inputs);

/** A 32-bit hash of a name (FNV-1a), so each weight's values depend on its name and the seed only. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a fast seeded PRNG of 32-bit words. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function fillUniform(buffer, seed, range) {
  if (os.endianness() !== 'LE') throw new Error('raw ONNX tensors are little-endian; this machine is not');
  const values = new Float32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4);
  const next = generator(seed);
  const step = (2 * range) / 2 ** 32;
  for (let i = 0; i < values.length; i++) values[i] = next() * step - range;
}

/** Symmetric int8, as quantize_dynamic stores weights: -127..127. */
function fillInt8(buffer, seed) {
  const next = generator(seed);
  for (let i = 0; i < buffer.length; i += 4) {
    const word = next();
    for (let b = 0; b < 4 && i + b < buffer.length; b++) buffer[i + b] = ((word >>> (8 * b)) % 255) - 127;
  }
}

function rawOf(dataType, values) {
  if (dataType === INT64) return Buffer.from(BigInt64Array.from(values, (v) => BigInt(v)).buffer);
  if (dataType === INT8) return Buffer.from(Int8Array.from(values).buffer);
  return Buffer.from(Float32Array.from(values).buffer);
}

class GraphBuilder {
  /** @param {{dtype: 'float32'|'int8', seed?: number}} options */
  constructor({ dtype, seed = 43 }) {
    this.dtype = dtype;
    this.seed = seed;
    this.nodes = [];
    this.initializers = [];
    this.parameters = 0;
    this.matmulParameters = 0;
    this.names = 0;
  }

  fresh(prefix) {
    return `${prefix}_${this.names++}`;
  }

  /** One node; returns its output name, or its `outputs` names; `named` names its one output (a graph output). */
  op(opType, input, { attribute = [], outputs = 1, named } = {}) {
    const output = named ? [named] : Array.from({ length: outputs }, () => this.fresh(opType));
    this.nodes.push({ opType, name: this.fresh(`${opType}_node`), input, output, attribute });
    return outputs === 1 ? output[0] : output;
  }

  /** A small constant (shapes, axes, scalars): `dims` [] is a scalar. */
  constant(values, { dataType = INT64, dims = [values.length] } = {}) {
    const name = this.fresh('const');
    this.initializers.push({ name, dims, dataType, bytes: rawOf(dataType, values) });
    return name;
  }

  scalar(value, dataType = FLOAT) {
    return this.constant([value], { dataType, dims: [] });
  }

  /** A float32 parameter: uniform random (`range`), or `ones` (a norm's scale). */
  weight(name, dims, { ones = false, range = EMBEDDING_RANGE } = {}) {
    const seed = hash(name) ^ this.seed;
    const fill = ones
      ? (buffer) => new Float32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4).fill(1)
      : (buffer) => fillUniform(buffer, seed, range);
    this.initializers.push({ name, dims, dataType: FLOAT, fill });
    this.parameters += dims.reduce((n, d) => n * d, 1);
    return name;
  }

  /** An int8 parameter with its per-tensor scale and zero point (0: symmetric), as quantize_dynamic writes it. */
  quantizedWeight(name, dims, range = EMBEDDING_RANGE) {
    const seed = hash(name) ^ this.seed;
    const quantized = `${name}_quantized`;
    this.initializers.push({ name: quantized, dims, dataType: INT8, fill: (buffer) => fillInt8(buffer, seed) });
    this.parameters += dims.reduce((n, d) => n * d, 1);
    const scale = `${name}_scale`;
    const zero = `${name}_zero_point`;
    this.initializers.push({ name: scale, dims: [], dataType: FLOAT, bytes: rawOf(FLOAT, [range / 127]) });
    this.initializers.push({ name: zero, dims: [], dataType: INT8, bytes: rawOf(INT8, [0]) });
    return { quantized, scale, zero };
  }

  /** x · W (+ b), W of [inputs, outputs]; in int8 as quantize_dynamic writes it (the bias stays a float Add). */
  linear(x, name, [inputs, outputs], { bias = false } = {}) {
    this.matmulParameters += inputs * outputs;
    let y;
    if (this.dtype === 'int8') {
      const w = this.quantizedWeight(`${name}.weight`, [inputs, outputs], linearRange(inputs));
      const [xq, xScale, xZero] = this.op('DynamicQuantizeLinear', [x], { outputs: 3 });
      const product = this.op('MatMulInteger', [xq, w.quantized, xZero, w.zero]);
      const asFloat = this.op('Cast', [product], { attribute: [int('to', FLOAT)] });
      const scales = this.op('Mul', [xScale, w.scale]);
      y = this.op('Mul', [asFloat, scales]);
    } else {
      y = this.op('MatMul', [x, this.weight(`${name}.weight`, [inputs, outputs], { range: linearRange(inputs) })]);
    }
    return bias ? this.op('Add', [y, this.weight(`${name}.bias`, [outputs], { range: linearRange(inputs) })]) : y;
  }

  /** Rows of a table by id; in int8 quantize_dynamic's Gather: the int8 rows, then DequantizeLinear. */
  embedding(ids, name, [rows, width]) {
    if (this.dtype !== 'int8') return this.op('Gather', [this.weight(name, [rows, width]), ids]);
    const w = this.quantizedWeight(name, [rows, width]);
    return this.op('DequantizeLinear', [this.op('Gather', [w.quantized, ids]), w.scale, w.zero]);
  }

  /** LayerNormalization over the last axis; `bias: false` as ModernBERT's norms have none. */
  layerNorm(x, name, width, { epsilon, bias = true }) {
    const input = [x, this.weight(`${name}.weight`, [width], { ones: true })];
    if (bias) input.push(this.weight(`${name}.bias`, [width], { range: 0 }));
    return this.op('LayerNormalization', input, { attribute: [int('axis', -1), float('epsilon', epsilon)] });
  }

  /** Exact GELU as PyTorch exports it (onnxruntime's optimiser fuses the pattern into one Gelu op). */
  gelu(x) {
    const erf = this.op('Erf', [this.op('Div', [x, this.scalar(Math.SQRT2)])]);
    return this.op('Mul', [this.op('Mul', [x, this.op('Add', [erf, this.scalar(1)])]), this.scalar(0.5)]);
  }
}

module.exports = { GraphBuilder, int, ints, float, FLOAT, INT64, INT8 };
