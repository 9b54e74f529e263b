'use strict';
/**
 * Writes an ONNX model to a file with its initializers streamed one at a time as raw bytes, so a 600 MB model
 * is written in seconds and never held in memory twice (protobufjs would build the whole message in one
 * buffer). Protobuf lets a message's fields come in any order and a length-delimited field be written as
 * tag, length, bytes: the model's small fields are encoded by onnx-proto, then the graph's initializers are
 * appended as `initializer` fields whose `raw_data` is written straight from each tensor's buffer.
 */
const fs = require('node:fs');
const { onnx } = require('onnx-proto');

// Field numbers from onnx.proto: ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto.raw_data = 9.
const LENGTH_DELIMITED = 2;
const tag = (field) => (field << 3) | LENGTH_DELIMITED;
const MODEL_GRAPH = tag(7);
const GRAPH_INITIALIZER = tag(5);
const TENSOR_RAW_DATA = tag(9);

function varint(value) {
  const bytes = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited field's framing: its tag and its length. */
const framing = (fieldTag, length) => Buffer.concat([Buffer.from([fieldTag]), varint(length)]);

const BYTES_PER_ELEMENT = {
  [onnx.TensorProto.DataType.FLOAT]: 4,
  [onnx.TensorProto.DataType.INT64]: 8,
  [onnx.TensorProto.DataType.INT8]: 1,
  [onnx.TensorProto.DataType.UINT8]: 1,
};

/** The number of raw bytes of an initializer, from its dims and type. */
function rawLength({ dims, dataType }) {
  const size = BYTES_PER_ELEMENT[dataType];
  if (!size) throw new Error(`no raw size for ONNX data type ${dataType}`);
  return dims.reduce((n, d) => n * d, 1) * size;
}

/**
 * Writes `model` (a ModelProto-shaped object whose graph has no `initializer`) and `initializers` to `file`.
 * Each initializer is `{name, dims, dataType, bytes}` or `{name, dims, dataType, fill(buffer)}`: `fill` writes
 * the tensor's values into a zeroed buffer of its raw length when the writer reaches it.
 */
function writeModel(file, model, initializers) {
  const { graph, ...rest } = model;
  const head = onnx.ModelProto.encode(onnx.ModelProto.create(rest)).finish();
  const graphHead = onnx.GraphProto.encode(onnx.GraphProto.create(graph)).finish();
  const tensors = initializers.map((tensor) => {
    const header = onnx.TensorProto.encode(
      onnx.TensorProto.create({ name: tensor.name, dims: tensor.dims, dataType: tensor.dataType }),
    ).finish();
    const raw = rawLength(tensor);
    if (tensor.bytes && tensor.bytes.length !== raw)
      throw new Error(`${tensor.name} has ${tensor.bytes.length} bytes, not the ${raw} its dims take`);
    const rawFraming = framing(TENSOR_RAW_DATA, raw);
    const length = header.length + rawFraming.length + raw;
    return { tensor, header, raw, rawFraming, outer: framing(GRAPH_INITIALIZER, length) };
  });
  const graphLength = tensors.reduce((n, t) => n + t.outer.length + t.header.length + t.rawFraming.length + t.raw, 0);
  const fd = fs.openSync(file, 'w');
  try {
    const write = (buffer) => {
      for (let at = 0; at < buffer.length;) at += fs.writeSync(fd, buffer, at, buffer.length - at);
    };
    write(head);
    write(framing(MODEL_GRAPH, graphHead.length + graphLength));
    write(graphHead);
    for (const { tensor, header, raw, rawFraming, outer } of tensors) {
      write(outer);
      write(header);
      write(rawFraming);
      if (tensor.bytes) write(tensor.bytes);
      else {
        const buffer = Buffer.alloc(raw);
        tensor.fill(buffer);
        write(buffer);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { writeModel, rawLength };
