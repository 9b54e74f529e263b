'use strict';
/**
 * A tiny cross-encoder made at test time, so the real loading, tokenising, batching and scoring run end to
 * end on a model whose answers a test can work out by hand. The ONNX graph (written with protobuf from JS)
 * looks up a score for each (token, segment) and averages it over the unpadded tokens:
 *
 *   logit = Σ mask·table[2·input_id + token_type_id] / Σ mask
 *
 * With a WordPiece tokenizer.json (BERT's normaliser, pre-tokeniser and [CLS] A [SEP] B [SEP] template) and a
 * config.json beside it. The padding token scores high on purpose: a batch whose padding were not masked
 * would change its answers.
 */
const fs = require('node:fs');
const path = require('node:path');
const { onnx } = require('onnx-proto');

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/** Score of each token in the query (segment A) and in the candidate (segment B); the rest score 0. */
const SCORES = {
  '[PAD]': [50, 50],
  '[UNK]': [-1, -1],
  '[CLS]': [0, 0],
  '[SEP]': [0, 0],
  refund: [1, 4],
  '##s': [0.5, 0.5],
  billing: [0, 2],
  shipping: [0, 1],
  technical: [0, -1],
  charged: [2, 0],
  yes: [0, 1.5],
  no: [0, 0.5],
  urgent: [0, 3],
  later: [0, -2],
  pick: [3, 0],
};
const OTHER_WORDS = [
  'which',
  'team',
  'should',
  'handle',
  'this',
  'i',
  'was',
  'twice',
  'ticket',
  'is',
  'it',
  'the',
  'customer',
  'angry',
  'how',
  'payments',
  'and',
  'packages',
  'can',
  'wait',
  'today',
  'one',
  'a',
  'tool',
  'for',
  'task',
];
const PUNCTUATION = ['?', ':', '{', '}', '"', ',', '.', '!'];

const VOCAB = [...SPECIAL, ...Object.keys(SCORES).filter((t) => !SPECIAL.includes(t)), ...OTHER_WORDS, ...PUNCTUATION];

/** The score the tiny model gives a token in a segment (0 = query, 1 = candidate). */
function scoreOf(token, segment) {
  return (SCORES[token] ?? [0, 0])[segment];
}

/**
 * The logit the tiny model gives a pair, worked out from token lists written by hand (without the
 * tokenizer): the mean score of `[CLS] query [SEP] candidate [SEP]`.
 */
function expectedLogit(queryTokens, candidateTokens, { tokenTypes = true } = {}) {
  const scored = [
    ['[CLS]', 0],
    ...queryTokens.map((t) => [t, 0]),
    ['[SEP]', 0],
    ...candidateTokens.map((t) => [t, tokenTypes ? 1 : 0]),
    ['[SEP]', tokenTypes ? 1 : 0],
  ];
  return scored.reduce((sum, [token, segment]) => sum + scoreOf(token, segment), 0) / scored.length;
}

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

function valueInfo(name, elemType, dims) {
  const dim = dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

const intAttribute = (name, i) => ({ name, type: onnx.AttributeProto.AttributeType.INT, i });

/** Every score is a multiple of this, so an int8 table times it holds the scores exactly. */
const QUANTUM = 0.5;

/**
 * The ONNX model bytes. `tokenTypes: false` drops the token_type_ids input (as ModernBERT exports do);
 * `quantized: true` stores the score table in int8 behind a DequantizeLinear, as the Hub's int8 exports
 * (model_quantized.onnx) store their weights, with the same answers.
 */
function modelBytes(vocab, { tokenTypes = true, twoLabels = false, outputType = 'float32', quantized = false } = {}) {
  const table = vocab.flatMap((token) => SCORES[token] ?? [0, 0]);
  const tableInitializers = quantized
    ? [
        {
          name: 'table_int8',
          dims: [table.length],
          dataType: onnx.TensorProto.DataType.INT8,
          int32Data: table.map((score) => score / QUANTUM),
        },
        { name: 'table_scale', dims: [], dataType: FLOAT, floatData: [QUANTUM] },
        { name: 'table_zero', dims: [], dataType: onnx.TensorProto.DataType.INT8, int32Data: [0] },
      ]
    : [{ name: 'table', dims: [table.length], dataType: FLOAT, floatData: table }];
  const nodes = [
    ...(quantized
      ? [{ opType: 'DequantizeLinear', input: ['table_int8', 'table_scale', 'table_zero'], output: ['table'] }]
      : []),
    { opType: 'Mul', input: ['input_ids', 'two'], output: ['doubled'] },
    tokenTypes
      ? { opType: 'Add', input: ['doubled', 'token_type_ids'], output: ['index'] }
      : { opType: 'Identity', input: ['doubled'], output: ['index'] },
    { opType: 'Gather', input: ['table', 'index'], output: ['scores'], attribute: [intAttribute('axis', 0)] },
    { opType: 'Cast', input: ['attention_mask'], output: ['mask'], attribute: [intAttribute('to', FLOAT)] },
    { opType: 'Mul', input: ['scores', 'mask'], output: ['masked'] },
    { opType: 'ReduceSum', input: ['masked', 'axes'], output: ['total'], attribute: [intAttribute('keepdims', 1)] },
    { opType: 'ReduceSum', input: ['mask', 'axes'], output: ['count'], attribute: [intAttribute('keepdims', 1)] },
    { opType: 'Div', input: ['total', 'count'], output: ['mean'] },
  ];
  // Two labels [−l, l]: the server's l1 − l0 is then 2·l.
  if (twoLabels)
    nodes.push(
      { opType: 'Neg', input: ['mean'], output: ['negated'] },
      { opType: 'Concat', input: ['negated', 'mean'], output: ['logits'], attribute: [intAttribute('axis', 1)] },
    );
  else if (outputType === 'float64')
    nodes.push({
      opType: 'Cast',
      input: ['mean'],
      output: ['logits'],
      attribute: [intAttribute('to', onnx.TensorProto.DataType.DOUBLE)],
    });
  else nodes.push({ opType: 'Identity', input: ['mean'], output: ['logits'] });
  const ids = [
    valueInfo('input_ids', INT64, ['batch', 'sequence']),
    valueInfo('attention_mask', INT64, ['batch', 'sequence']),
  ];
  if (tokenTypes) ids.push(valueInfo('token_type_ids', INT64, ['batch', 'sequence']));
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'system1-reranker-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-cross-encoder',
      node: nodes,
      initializer: [
        ...tableInitializers,
        { name: 'two', dims: [], dataType: INT64, int64Data: [2] },
        { name: 'axes', dims: [1], dataType: INT64, int64Data: [1] },
      ],
      input: ids,
      output: [
        valueInfo('logits', outputType === 'float64' ? onnx.TensorProto.DataType.DOUBLE : FLOAT, [
          'batch',
          twoLabels ? 2 : 1,
        ]),
      ],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocab) {
  const ID = new Map(vocab.map((token, id) => [token, id]));
  const special = (token) => ({
    id: ID.get(token),
    content: token,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const typed = (id, type_id) =>
    id === 'A' || id === 'B' ? { Sequence: { id, type_id } } : { SpecialToken: { id, type_id } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [typed('[CLS]', 0), typed('A', 0), typed('[SEP]', 0)],
      pair: [typed('[CLS]', 0), typed('A', 0), typed('[SEP]', 0), typed('B', 1), typed('[SEP]', 1)],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [ID.get(t)], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(ID),
    },
  };
}

/**
 * Writes the tiny model into `dir` and returns `dir`. `layout: 'onnx'` puts the graph in onnx/model.onnx
 * (the Hub's layout; onnx/model_quantized.onnx with `quantized: true`); `maxLength` is the config's
 * max_position_embeddings; `extraWords` join the vocabulary with a score of 0 (bench.js's text, so that its
 * words are looked up as a real vocabulary's are).
 */
function writeTinyModel(dir, { layout = 'root', maxLength = 64, extraWords = [], ...graph } = {}) {
  const vocab = [...VOCAB, ...new Set(extraWords.filter((word) => !VOCAB.includes(word)))];
  const onnxFile =
    layout === 'onnx'
      ? path.join(dir, 'onnx', graph.quantized ? 'model_quantized.onnx' : 'model.onnx')
      : path.join(dir, 'model.onnx');
  fs.mkdirSync(path.dirname(onnxFile), { recursive: true });
  fs.writeFileSync(onnxFile, modelBytes(vocab, graph));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ do_lower_case: true, pad_token: '[PAD]', unk_token: '[UNK]', model_max_length: maxLength }),
  );
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      architectures: ['BertForSequenceClassification'],
      model_type: 'bert',
      num_labels: 1,
      max_position_embeddings: maxLength,
      pad_token_id: 0,
      vocab_size: vocab.length,
    }),
  );
  return dir;
}

module.exports = { writeTinyModel, expectedLogit, tokenizerJson };

// `node test-support/tiny-model.js DIR [--hub-layout] [--quantized]` writes the tiny model into DIR (for trying
// the server by hand, the gateway's end-to-end tests and bench.js); --hub-layout puts the graph in onnx/, as
// the Hugging Face Hub hosts exports.
if (require.main === module) {
  const [dir, ...flags] = process.argv.slice(2);
  const unknown = flags.filter((flag) => !['--hub-layout', '--quantized'].includes(flag));
  if (!dir || unknown.length > 0) {
    console.error('usage: node test-support/tiny-model.js DIR [--hub-layout] [--quantized]');
    process.exit(1);
  }
  fs.mkdirSync(dir, { recursive: true });
  const options = {
    layout: flags.includes('--hub-layout') ? 'onnx' : 'root',
    quantized: flags.includes('--quantized'),
  };
  console.log(`tiny test cross-encoder written to ${writeTinyModel(path.resolve(dir), options)}`);
}
