'use strict';
/**
 * A cross-encoder exported to ONNX, run with onnxruntime-node: one logit per (query, candidate) pair, the
 * pairs of a request in runs of similar length. Weights in float32 or int8 (the Hub's int8 export), logits in
 * float32; float16 exports are refused: the naga study measured float16 seven times slower on a CPU, which has
 * no half-precision units.
 */
const fs = require('node:fs');
const path = require('node:path');
const ort = require('onnxruntime-node');
const { readModelFolder, maxLengthOf, ModelFolderError } = require('./model-folder');
const { PairEncoder } = require('./pair-encoder');
const { planRuns } = require('./length-batches');

const KNOWN_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'];
const DEVICES = ['auto', 'cpu', 'cuda'];

/**
 * onnxruntime-node ships the CPU runtime in its npm package; the CUDA provider library is a separate
 * download (`ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci`), so CUDA is tried only when that library is there.
 */
function cudaInstalled() {
  const library = { linux: 'libonnxruntime_providers_cuda.so', win32: 'onnxruntime_providers_cuda.dll' }[
    process.platform
  ];
  if (!library) return false;
  const bin = path.join(
    path.dirname(require.resolve('onnxruntime-node')),
    '..',
    'bin',
    'napi-v6',
    process.platform,
    process.arch,
  );
  return fs.existsSync(path.join(bin, library));
}

async function openSession(onnxFile, device) {
  const options = { graphOptimizationLevel: 'all' };
  if (device === 'cpu')
    return {
      session: await ort.InferenceSession.create(onnxFile, { ...options, executionProviders: ['cpu'] }),
      device: 'cpu',
    };
  if (device === 'cuda' || cudaInstalled()) {
    try {
      return {
        session: await ort.InferenceSession.create(onnxFile, { ...options, executionProviders: ['cuda'] }),
        device: 'cuda',
      };
    } catch (error) {
      if (device === 'cuda') throw new ModelFolderError(`CUDA was asked for but could not start: ${error.message}`);
      const session = await ort.InferenceSession.create(onnxFile, { ...options, executionProviders: ['cpu'] });
      return {
        session,
        device: 'cpu',
        note: `CUDA could not start (${error.message.split('\n')[0]}), so the CPU runs it`,
      };
    }
  }
  return {
    session: await ort.InferenceSession.create(onnxFile, { ...options, executionProviders: ['cpu'] }),
    device: 'cpu',
  };
}

/** The element type the model declares for an input (int64 in every export we know; int32 allowed). */
function inputType(session, name) {
  const meta = (session.inputMetadata ?? []).find((m) => m.name === name);
  return meta?.type === 'int32' ? 'int32' : 'int64';
}

function tensorOf(type, values, dims) {
  if (type === 'int32') return new ort.Tensor('int32', values, dims);
  const wide = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) wide[i] = BigInt(values[i]);
  return new ort.Tensor('int64', wide, dims);
}

class CrossEncoder {
  /**
   * Loads the model folder and checks, with one pair, that the model gives one float32 logit per pair.
   * @param {string} dir the folder
   * @param {{device?: 'auto'|'cpu'|'cuda', maxLength?: number, name?: string}} options
   */
  static async load(dir, { device = 'auto', maxLength, name } = {}) {
    if (!DEVICES.includes(device))
      throw new ModelFolderError(`the device must be one of ${DEVICES.join(', ')}, not ${JSON.stringify(device)}`);
    const files = readModelFolder(dir);
    let encoder;
    try {
      encoder = new PairEncoder(files, maxLengthOf(files, maxLength));
    } catch (error) {
      throw new ModelFolderError(`${path.join(files.folder, 'tokenizer.json')} could not be used: ${error.message}`);
    }
    let opened;
    try {
      opened = await openSession(files.onnxFile, device);
    } catch (error) {
      if (error instanceof ModelFolderError) throw error;
      throw new ModelFolderError(
        `${files.onnxFile} could not be loaded by onnxruntime: ${error.message.split('\n')[0]}`,
      );
    }
    const model = new CrossEncoder(files, encoder, opened, name ?? path.basename(files.folder));
    await model.score([{ query: encoder.tokens('check'), candidate: encoder.tokens('check') }]);
    return model;
  }

  constructor(files, encoder, { session, device, note }, name) {
    const unknown = session.inputNames.filter((input) => !KNOWN_INPUTS.includes(input));
    if (unknown.length > 0 || !session.inputNames.includes('input_ids')) {
      throw new ModelFolderError(
        `${files.onnxFile} takes the inputs ${session.inputNames.join(', ')}; a cross-encoder export takes input_ids with attention_mask and (BERT-style) token_type_ids`,
      );
    }
    this.name = name;
    this.folder = files.folder;
    this.onnxFile = files.onnxFile;
    this.encoder = encoder;
    this.session = session;
    this.device = device;
    this.deviceNote = note;
    this.output = session.outputNames.includes('logits') ? 'logits' : session.outputNames[0];
    this.types = Object.fromEntries(session.inputNames.map((input) => [input, inputType(session, input)]));
  }

  get maxLength() {
    return this.encoder.maxLength;
  }

  /** The first tokens of a text, without special tokens: at most maxLength, from the text's start only. */
  tokens(text) {
    return this.encoder.tokens(text);
  }

  /**
   * A logit per pair (`{query, candidate}` token lists), in the pairs' order, and the number of real
   * (unpadded) tokens the model read. The pairs run in length-sorted runs (lib/length-batches.js), one
   * session run after another, so a long pair does not make the short ones run at its length; padding is
   * masked, so each logit is what the pair alone would get.
   */
  async score(pairs) {
    const rows = this.encoder.rows(pairs);
    const logits = new Array(pairs.length);
    for (const run of planRuns(rows.map((row) => row.ids.length))) {
      const { inputs, dims } = this.encoder.padded(run.map((index) => rows[index]));
      const feeds = Object.fromEntries(
        Object.entries(this.types).map(([input, type]) => [input, tensorOf(type, inputs[input], dims)]),
      );
      const result = await this.session.run(feeds);
      this.logitsOf(result[this.output], run.length).forEach((logit, k) => (logits[run[k]] = logit));
    }
    return { logits, tokens: rows.reduce((sum, row) => sum + row.ids.length, 0) };
  }

  /**
   * One relevance logit per pair from the output: `[batch]` or `[batch, 1]`, or `[batch, 2]` for a
   * two-label classifier, whose log-odds of label 1 (relevant) is l1 − l0.
   */
  logitsOf(output, batch) {
    if (output.type !== 'float32') {
      throw new ModelFolderError(
        `the model's ${this.output} output is ${output.type}, not float32: export it in float32 (float16 runs about 7 times slower on a CPU)`,
      );
    }
    const width = output.dims.length === 1 ? 1 : output.dims[1];
    const shapeOk =
      output.dims[0] === batch &&
      (output.dims.length === 1 || (output.dims.length === 2 && (width === 1 || width === 2)));
    if (!shapeOk) {
      throw new ModelFolderError(
        `the model's ${this.output} output has shape [${output.dims.join(', ')}]; a cross-encoder gives one logit (or two labels) per pair`,
      );
    }
    const data = output.data;
    return Array.from({ length: batch }, (_, i) => (width === 2 ? data[2 * i + 1] - data[2 * i] : data[i * width]));
  }

  async release() {
    await this.session.release();
  }
}

module.exports = { CrossEncoder, ModelFolderError };
