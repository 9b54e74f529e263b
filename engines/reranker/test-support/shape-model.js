'use strict';
/**
 * A model folder with a real cross-encoder's exact shapes and op structure and random weights, to time the
 * engine at its real size without downloading a model (a run's speed does not depend on the weights' values;
 * its answers mean nothing). Shapes in test-support/shapes.js: `gte-modernbert` (Alibaba-NLP/gte-reranker-
 * modernbert-base, 149.6M parameters) and `minilm-l6` (cross-encoder/ms-marco-MiniLM-L-6-v2, 22.7M), each in
 * float32 or int8 (onnxruntime's quantize_dynamic layout; the embedding tables too, as quantize_dynamic
 * quantizes Gather: int8 rows, then DequantizeLinear). The folder is what the engine reads: model.onnx (int8: where
 * `engine pull` puts the Hub's int8 export, onnx/model_quantized.onnx, so the engine knows it is int8), tokenizer.json (a WordPiece vocabulary of the model's size holding bench.js's words), tokenizer_config.json
 * and config.json with the model's real max_position_embeddings.
 */
const fs = require('node:fs');
const path = require('node:path');
const { GraphBuilder, FLOAT, INT64 } = require('./graph-builder');
const { buildGraph, inputNames } = require('./shape-graphs');
const { shapeSpec, DTYPES } = require('./shapes');
const { writeModel } = require('./onnx-writer');
const { tokenizerJson } = require('./tiny-model');
const { benchWords } = require('./bench-texts');

function valueInfo(name, elemType, dims) {
  const dim = dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

/** The graph of a shape, its weights not yet drawn: `{model, initializers, parameters}`. */
function describe(spec, { dtype, seed }) {
  if (!DTYPES.includes(dtype)) throw new Error(`the dtype must be one of ${DTYPES.join(', ')}, not ${dtype}`);
  const g = new GraphBuilder({ dtype, seed });
  const logits = buildGraph(g, spec);
  g.op('Identity', [logits], { named: 'logits' });
  const model = {
    irVersion: 8,
    producerName: 'system1-reranker-shape-model',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: `${spec.name}-${dtype}-random-weights`,
      node: g.nodes,
      input: inputNames(spec).map((input) => valueInfo(input, INT64, ['batch', 'sequence'])),
      output: [valueInfo('logits', FLOAT, ['batch', 1])],
    },
  };
  return { model, initializers: g.initializers, parameters: g.parameters, matmulParameters: g.matmulParameters };
}

/**
 * The model's parameters, and those of its weight matrices (what its matrix multiplies read), counted from its
 * graph without drawing or writing a weight.
 */
function parameterCounts(shape, overrides = {}) {
  const { parameters, matmulParameters } = describe(shapeSpec(shape, overrides), { dtype: 'float32', seed: 0 });
  return { parameters, matmulParameters };
}

const parameterCount = (shape, overrides) => parameterCounts(shape, overrides).parameters;

/** Exactly `spec.vocab` entries: the special tokens at the model's ids, bench.js's words, then fillers. */
function vocabulary(spec) {
  const vocab = new Array(spec.vocab);
  for (const [token, id] of Object.entries(spec.specialIds)) vocab[id] = token;
  const words = benchWords().filter((word) => !(word in spec.specialIds));
  let next = 0;
  let filler = 0;
  for (let id = 0; id < vocab.length; id++) {
    if (vocab[id] !== undefined) continue;
    // BERT's own vocabularies hold [unusedN] entries; no text tokenises to one, so they crowd out no word.
    vocab[id] = next < words.length ? words[next++] : `[unused${filler++}]`;
  }
  if (next < words.length) throw new Error(`a vocabulary of ${spec.vocab} cannot hold the bench's words`);
  return vocab;
}

function configJson(spec) {
  const common = {
    num_labels: 1,
    hidden_size: spec.hidden,
    num_hidden_layers: spec.layers,
    num_attention_heads: spec.heads,
    intermediate_size: spec.intermediate,
    max_position_embeddings: spec.maxPositions,
    vocab_size: spec.vocab,
    pad_token_id: spec.specialIds['[PAD]'],
    note: `random weights with the shapes of ${spec.repo}, for timing only (test-support/shape-model.js)`,
  };
  if (spec.architecture === 'bert')
    return { architectures: ['BertForSequenceClassification'], model_type: 'bert', ...common, type_vocab_size: 2 };
  return {
    architectures: ['ModernBertForSequenceClassification'],
    model_type: 'modernbert',
    ...common,
    global_attn_every_n_layers: spec.globalEvery,
    local_attention: spec.localWindow,
    global_rope_theta: spec.globalRopeTheta,
    local_rope_theta: spec.localRopeTheta,
    classifier_pooling: 'mean',
    norm_eps: spec.normEps,
  };
}

/** Where the graph goes in the folder, as a pulled model of that type has it. */
const modelFileOf = (dtype) => (dtype === 'int8' ? path.join('onnx', 'model_quantized.onnx') : 'model.onnx');

/**
 * Writes the model folder into `dir` and returns `{dir, parameters, seconds}`. `overrides` (`layers`,
 * `hidden`, `heads`, `intermediate`) shrink it for tests only.
 */
function writeShapeModel(dir, { shape, dtype = 'float32', overrides = {}, seed = 43 }) {
  const started = performance.now();
  const spec = shapeSpec(shape, overrides);
  const { model, initializers, parameters } = describe(spec, { dtype, seed });
  fs.mkdirSync(path.dirname(path.join(dir, modelFileOf(dtype))), { recursive: true });
  writeModel(path.join(dir, modelFileOf(dtype)), model, initializers);
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocabulary(spec))));
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      do_lower_case: true,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      mask_token: '[MASK]',
      model_max_length: spec.maxPositions,
    }),
  );
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(configJson(spec), null, 2));
  return { dir, parameters, seconds: (performance.now() - started) / 1000 };
}

module.exports = { writeShapeModel, modelFileOf, parameterCount, parameterCounts };

// `node test-support/shape-model.js DIR --shape gte-modernbert|minilm-l6 [--dtype float32|int8]`
if (require.main === module) {
  const { parseArgs } = require('node:util');
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { shape: { type: 'string' }, dtype: { type: 'string', default: 'float32' } },
    });
  } catch (error) {
    parsed = { error };
  }
  const dir = parsed.positionals?.[0];
  if (parsed.error || !dir || !parsed.values.shape || parsed.positionals.length !== 1) {
    console.error(
      'usage: node test-support/shape-model.js DIR --shape gte-modernbert|minilm-l6 [--dtype float32|int8]',
    );
    process.exit(1);
  }
  try {
    const { parameters, seconds } = writeShapeModel(path.resolve(dir), parsed.values);
    console.log(
      `${parsed.values.shape} (${parsed.values.dtype}, ${(parameters / 1e6).toFixed(1)}M parameters, random weights) written to ${path.resolve(dir)} in ${seconds.toFixed(1)} s`,
    );
  } catch (error) {
    console.error(`shape-model: ${error.message}`);
    process.exit(1);
  }
}
