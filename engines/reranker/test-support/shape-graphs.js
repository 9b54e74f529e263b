'use strict';
/**
 * The ONNX graphs of the real cross-encoders, op by op as their PyTorch exports compute them, on a
 * GraphBuilder (weights random): ModernBERT (gte-reranker-modernbert-base) and BERT (ms-marco-MiniLM-L-6-v2).
 * Inputs `input_ids` and `attention_mask` (and `token_type_ids` for BERT), int64 [batch, sequence]; output
 * `logits`, float [batch, 1]. Padding is masked as the models mask it (an additive mask of float32's lowest
 * value on padded keys, mean pooling over real tokens for ModernBERT), so padding changes no pair's logit.
 */
const { int, ints, FLOAT, INT64 } = require('./graph-builder');

const LOWEST = -3.4028234663852886e38; // torch.finfo(torch.float32).min, what transformers masks with

/** The sequence length as a scalar, and the positions 0..S-1 (int64). */
function positions(g, ids) {
  const length = g.op('Gather', [g.op('Shape', [ids]), g.constant([1], { dims: [] })], { attribute: [int('axis', 0)] });
  return g.op('Range', [g.constant([0], { dims: [] }), length, g.constant([1], { dims: [] })]);
}

/** [batch, 1, 1, S]: 0 on real tokens, LOWEST on padding; and the mask as float [batch, S]. */
function paddingMask(g, attentionMask) {
  const mask = g.op('Cast', [attentionMask], { attribute: [int('to', FLOAT)] });
  const additive = g.op('Mul', [g.op('Sub', [g.scalar(1), mask]), g.scalar(LOWEST)]);
  return { mask, additive: g.op('Unsqueeze', [additive, g.constant([1, 2])]) };
}

/** Splits [B, S, hidden] into heads [B, heads, S, headDim]. */
function toHeads(g, x, spec) {
  const split = g.op('Reshape', [x, g.constant([0, 0, spec.heads, spec.hidden / spec.heads])]);
  return g.op('Transpose', [split], { attribute: [ints('perm', [0, 2, 1, 3])] });
}

/** softmax(q·kᵀ / √d + mask) · v, heads joined back to [B, S, hidden]. */
function attend(g, { q, k, v, mask }, spec) {
  const keys = g.op('Transpose', [k], { attribute: [ints('perm', [0, 1, 3, 2])] });
  const scores = g.op('Div', [g.op('MatMul', [q, keys]), g.scalar(Math.sqrt(spec.hidden / spec.heads))]);
  const weights = g.op('Softmax', [g.op('Add', [scores, mask])], { attribute: [int('axis', -1)] });
  const context = g.op('Transpose', [g.op('MatMul', [weights, v])], { attribute: [ints('perm', [0, 2, 1, 3])] });
  return g.op('Reshape', [context, g.constant([0, 0, spec.hidden])]);
}

/** cos and sin of the rotary angles, [S, headDim], for a base `theta`. */
function rotaryTables(g, positionsFloat, theta, headDim) {
  const inverse = Array.from({ length: headDim / 2 }, (_, i) => 1 / theta ** ((2 * i) / headDim));
  const angles = g.op('Mul', [
    g.op('Unsqueeze', [positionsFloat, g.constant([1])]),
    g.constant(inverse, { dataType: FLOAT }),
  ]);
  const both = g.op('Concat', [angles, angles], { attribute: [int('axis', -1)] });
  return { cos: g.op('Cos', [both]), sin: g.op('Sin', [both]) };
}

/** x·cos + rotate_half(x)·sin, rotate_half(x) = [-x2, x1]. */
function rotate(g, x, { cos, sin }, headDim) {
  const half = g.constant([headDim / 2, headDim / 2]);
  const [x1, x2] = g.op('Split', [x, half], { attribute: [int('axis', -1)], outputs: 2 });
  const turned = g.op('Concat', [g.op('Neg', [x2]), x1], { attribute: [int('axis', -1)] });
  return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [turned, sin])]);
}

function modernBertGraph(g, spec) {
  const norm = (x, name) => g.layerNorm(x, name, spec.hidden, { epsilon: spec.normEps, bias: false });
  const headDim = spec.hidden / spec.heads;
  const { mask, additive } = paddingMask(g, 'attention_mask');
  const position = positions(g, 'input_ids');
  // Local layers also mask keys more than half the window away: where(|i - j| > window/2, LOWEST, padding mask).
  const distance = g.op('Abs', [
    g.op('Sub', [g.op('Unsqueeze', [position, g.constant([1])]), g.op('Unsqueeze', [position, g.constant([0])])]),
  ]);
  const outside = g.op('Greater', [distance, g.constant([spec.localWindow / 2], { dims: [] })]);
  const localMask = g.op('Where', [outside, g.scalar(LOWEST), additive]);
  const positionFloat = g.op('Cast', [position], { attribute: [int('to', FLOAT)] });
  const globalRotary = rotaryTables(g, positionFloat, spec.globalRopeTheta, headDim);
  const localRotary = rotaryTables(g, positionFloat, spec.localRopeTheta, headDim);

  let x = norm(
    g.embedding('input_ids', 'embeddings.tok_embeddings.weight', [spec.vocab, spec.hidden]),
    'embeddings.norm',
  );
  for (let layer = 0; layer < spec.layers; layer++) {
    const name = `layers.${layer}`;
    const global = layer % spec.globalEvery === 0;
    // Layer 0's attn_norm is an identity: the embeddings' norm has just run.
    const normed = layer === 0 ? x : norm(x, `${name}.attn_norm`);
    const qkv = g.linear(normed, `${name}.attn.Wqkv`, [spec.hidden, 3 * spec.hidden]);
    const split = g.op('Reshape', [qkv, g.constant([0, 0, 3, spec.heads, headDim])]);
    const [q, k, v] = [0, 1, 2].map((i) =>
      g.op('Transpose', [g.op('Gather', [split, g.constant([i], { dims: [] })], { attribute: [int('axis', 2)] })], {
        attribute: [ints('perm', [0, 2, 1, 3])],
      }),
    );
    const rotary = global ? globalRotary : localRotary;
    const heads = { q: rotate(g, q, rotary, headDim), k: rotate(g, k, rotary, headDim), v };
    const context = attend(g, { ...heads, mask: global ? additive : localMask }, spec);
    x = g.op('Add', [x, g.linear(context, `${name}.attn.Wo`, [spec.hidden, spec.hidden])]);
    // GeGLU: Wi gives the input and the gate; GELU(input) · gate goes through Wo.
    const wi = g.linear(norm(x, `${name}.mlp_norm`), `${name}.mlp.Wi`, [spec.hidden, 2 * spec.intermediate]);
    const sizes = g.constant([spec.intermediate, spec.intermediate]);
    const [input, gate] = g.op('Split', [wi, sizes], { attribute: [int('axis', -1)], outputs: 2 });
    const mlp = g.linear(g.op('Mul', [g.gelu(input), gate]), `${name}.mlp.Wo`, [spec.intermediate, spec.hidden]);
    x = g.op('Add', [x, mlp]);
  }
  x = norm(x, 'final_norm');
  // classifier_pooling "mean": the mean over real tokens.
  const weights = g.op('Unsqueeze', [mask, g.constant([2])]);
  const total = g.op('ReduceSum', [g.op('Mul', [x, weights]), g.constant([1])], { attribute: [int('keepdims', 0)] });
  const count = g.op('ReduceSum', [weights, g.constant([1])], { attribute: [int('keepdims', 0)] });
  const pooled = g.op('Div', [total, count]);
  const head = norm(g.gelu(g.linear(pooled, 'head.dense', [spec.hidden, spec.hidden])), 'head.norm');
  return g.linear(head, 'classifier', [spec.hidden, 1], { bias: true });
}

function bertGraph(g, spec) {
  const norm = (x, name) => g.layerNorm(x, name, spec.hidden, { epsilon: spec.normEps });
  const { additive } = paddingMask(g, 'attention_mask');
  const words = g.embedding('input_ids', 'embeddings.word_embeddings.weight', [spec.vocab, spec.hidden]);
  const where = g.embedding(positions(g, 'input_ids'), 'embeddings.position_embeddings.weight', [
    spec.maxPositions,
    spec.hidden,
  ]);
  const types = g.embedding('token_type_ids', 'embeddings.token_type_embeddings.weight', [spec.typeVocab, spec.hidden]);
  let x = norm(g.op('Add', [g.op('Add', [words, where]), types]), 'embeddings.LayerNorm');
  for (let layer = 0; layer < spec.layers; layer++) {
    const name = `encoder.layer.${layer}`;
    const project = (part) =>
      toHeads(g, g.linear(x, `${name}.attention.self.${part}`, [spec.hidden, spec.hidden], { bias: true }), spec);
    const context = attend(g, { q: project('query'), k: project('key'), v: project('value'), mask: additive }, spec);
    const attended = g.linear(context, `${name}.attention.output.dense`, [spec.hidden, spec.hidden], { bias: true });
    x = norm(g.op('Add', [attended, x]), `${name}.attention.output.LayerNorm`);
    const inner = g.gelu(g.linear(x, `${name}.intermediate.dense`, [spec.hidden, spec.intermediate], { bias: true }));
    const out = g.linear(inner, `${name}.output.dense`, [spec.intermediate, spec.hidden], { bias: true });
    x = norm(g.op('Add', [out, x]), `${name}.output.LayerNorm`);
  }
  // The pooler reads the [CLS] token.
  const first = g.op('Gather', [x, g.constant([0], { dims: [] })], { attribute: [int('axis', 1)] });
  const pooled = g.op('Tanh', [g.linear(first, 'bert.pooler.dense', [spec.hidden, spec.hidden], { bias: true })]);
  return g.linear(pooled, 'classifier', [spec.hidden, 1], { bias: true });
}

/** Builds the shape's graph on `g` and returns the name of its [batch, 1] logits. */
function buildGraph(g, spec) {
  return spec.architecture === 'modernbert' ? modernBertGraph(g, spec) : bertGraph(g, spec);
}

/** The graph's inputs, as the model's export declares them. */
function inputNames(spec) {
  return spec.architecture === 'bert'
    ? ['input_ids', 'attention_mask', 'token_type_ids']
    : ['input_ids', 'attention_mask'];
}

module.exports = { buildGraph, inputNames, INT64 };
