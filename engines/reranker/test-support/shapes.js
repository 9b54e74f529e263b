'use strict';
/**
 * The shapes of the real cross-encoders the engine serves, for graphs with their exact sizes and op structure
 * (test-support/shape-model.js) and for what a decision costs in arithmetic. Values from the models' config.json
 * (answerdotai/ModernBERT-base and Alibaba-NLP/gte-reranker-modernbert-base; cross-encoder/ms-marco-MiniLM-L-6-v2,
 * a BERT of 6 layers).
 */

const SHAPES = {
  // Alibaba-NLP/gte-reranker-modernbert-base: ModernBERT-base with a one-logit head.
  'gte-modernbert': {
    architecture: 'modernbert',
    repo: 'Alibaba-NLP/gte-reranker-modernbert-base',
    layers: 22,
    hidden: 768,
    heads: 12,
    intermediate: 1152, // Wi is hidden -> 2 x 1152 (GeGLU: input and gate), Wo is 1152 -> hidden
    vocab: 50368,
    maxPositions: 8192,
    normEps: 1e-5,
    globalEvery: 3, // layers 0, 3, 6, ... attend globally; the others within a window
    localWindow: 128, // a token sees 64 tokens either side on a local layer
    globalRopeTheta: 160000,
    localRopeTheta: 10000,
    // ModernBERT's tokenizer puts its special tokens at the end of the vocabulary.
    specialIds: { '[UNK]': 50280, '[CLS]': 50281, '[SEP]': 50282, '[PAD]': 50283, '[MASK]': 50284 },
  },
  // cross-encoder/ms-marco-MiniLM-L-6-v2: BERT with 6 layers of 384, a pooler and a one-logit classifier.
  'minilm-l6': {
    architecture: 'bert',
    repo: 'cross-encoder/ms-marco-MiniLM-L-6-v2',
    layers: 6,
    hidden: 384,
    heads: 12,
    intermediate: 1536,
    vocab: 30522,
    maxPositions: 512,
    typeVocab: 2,
    normEps: 1e-12,
    specialIds: { '[PAD]': 0, '[UNK]': 100, '[CLS]': 101, '[SEP]': 102, '[MASK]': 103 },
  },
};

const DTYPES = ['float32', 'int8'];

/**
 * The spec of a shape, with sizes overridden for tests only (`layers`, `hidden`, `heads`, `intermediate`), so a
 * test's model is a few MB and still has every op of the real one.
 */
function shapeSpec(name, overrides = {}) {
  const base = SHAPES[name];
  if (!base) throw new Error(`unknown shape ${JSON.stringify(name)}: one of ${Object.keys(SHAPES).join(', ')}`);
  const spec = { name, ...base, ...overrides };
  if (spec.hidden % spec.heads !== 0) throw new Error(`hidden ${spec.hidden} is not a multiple of heads ${spec.heads}`);
  return spec;
}

/** Weights of the matrix multiplies every token goes through, per layer, and those run once per pair. */
function matmulWeights(spec) {
  const { hidden: h, intermediate: i } = spec;
  if (spec.architecture === 'modernbert')
    // Wqkv, attention Wo, Wi (input and gate), mlp Wo; the head's dense and the classifier once per pair.
    return { perLayer: h * 3 * h + h * h + h * 2 * i + i * h, perPair: h * h + h };
  // Q, K, V, attention output, FFN in and out; the pooler and the classifier once per pair.
  return { perLayer: 4 * h * h + 2 * h * i, perPair: h * h + h };
}

/**
 * Floating-point operations of one model run over `pairs` pairs padded to `length` tokens, as the run computes
 * them (padding included): 2 per weight per token for the matrix multiplies, plus attention's two L x L
 * products (Q·Kᵀ and the weights times V, 2·L²·hidden each) per layer, plus the head per pair. Local-window
 * layers count the full L x L too: the graph computes it and masks the rest. Element-wise ops are left out.
 */
function flopsOf(spec, pairs, length) {
  const { perLayer, perPair } = matmulWeights(spec);
  const perSequence = spec.layers * (2 * perLayer * length + 4 * length * length * spec.hidden) + 2 * perPair;
  return pairs * perSequence;
}

module.exports = { SHAPES, DTYPES, shapeSpec, flopsOf, matmulWeights };
