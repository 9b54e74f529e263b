'use strict';
/**
 * The files of a cross-encoder exported to ONNX, from a local folder only: `model.onnx` (optimum's
 * export) or `onnx/model.onnx` (the layout of ONNX exports on the Hugging Face Hub), else
 * `onnx/model_quantized.onnx` (the Hub's int8 export, what `system1 engine pull reranker --quantized`
 * fetches), `tokenizer.json`, `config.json` and, when present, `tokenizer_config.json`. Nothing is ever
 * fetched.
 */
const fs = require('node:fs');
const path = require('node:path');

/** Tokenizer and config files are JSON of a few MB at most (a large multilingual vocabulary is ~20 MB). */
const MAX_JSON_BYTES = 64 * 1024 * 1024;
/** In order of preference: float32 first, since the int8 export's accuracy was never measured here. */
const MODEL_FILES = ['model.onnx', path.join('onnx', 'model.onnx'), path.join('onnx', 'model_quantized.onnx')];

class ModelFolderError extends Error {}

function regularFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function readJson(file, { optional = false } = {}) {
  let stats;
  try {
    stats = fs.statSync(file);
  } catch (error) {
    if (optional && error.code === 'ENOENT') return undefined;
    throw new ModelFolderError(`${file} is missing (${error.code})`);
  }
  if (!stats.isFile()) throw new ModelFolderError(`${file} is not a regular file`);
  if (stats.size > MAX_JSON_BYTES)
    throw new ModelFolderError(`${file} is ${stats.size} bytes, over the ${MAX_JSON_BYTES}-byte cap for a JSON file`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ModelFolderError(`${file} is not valid JSON (${error.message})`);
  }
}

/** A positive whole number of tokens, or undefined (HF writes 1e30 for "no limit" in tokenizer_config). */
function tokenCount(value) {
  return Number.isSafeInteger(value) && value > 0 && value < 1_000_000 ? value : undefined;
}

/**
 * The longest input the model takes: the smallest limit its files state (tokenizer.json's truncation,
 * tokenizer_config's model_max_length, config's max_position_embeddings; RoBERTa-style models state 514
 * positions but 512 tokens), else 512; `requested` lowers it, never raises it.
 */
function maxLengthOf({ tokenizer, tokenizerConfig, config }, requested) {
  const stated = [tokenizer?.truncation?.max_length, tokenizerConfig?.model_max_length, config?.max_position_embeddings]
    .map(tokenCount)
    .filter((n) => n !== undefined);
  const model = stated.length > 0 ? Math.min(...stated) : 512;
  return requested === undefined ? model : Math.min(model, requested);
}

/** Reads the folder; throws ModelFolderError naming what is missing. */
function readModelFolder(dir) {
  const folder = path.resolve(dir);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory())
    throw new ModelFolderError(`the model folder ${folder} does not exist`);
  const onnxFile = MODEL_FILES.map((file) => path.join(folder, file)).find(regularFile);
  if (!onnxFile) {
    throw new ModelFolderError(
      `${folder} has no model.onnx, onnx/model.onnx nor onnx/model_quantized.onnx: pull one (system1 engine pull reranker) or export the model to ONNX first (see the reranker's README: optimum-cli export onnx)`,
    );
  }
  return {
    folder,
    onnxFile,
    tokenizer: readJson(path.join(folder, 'tokenizer.json')),
    tokenizerConfig: readJson(path.join(folder, 'tokenizer_config.json'), { optional: true }) ?? {},
    config: readJson(path.join(folder, 'config.json')),
  };
}

module.exports = { readModelFolder, maxLengthOf, ModelFolderError };
