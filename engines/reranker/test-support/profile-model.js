#!/usr/bin/env node
'use strict';
/**
 * Where one decision's time goes, op type by op type: the model folder opened as the engine opens it (CPU,
 * graph optimisation "all") with onnxruntime's profiler on, one warm-up run, then ONE profiled decision of N
 * bench candidates; the kernel time of that run summed per op type, and the op types of the graph onnxruntime
 * actually runs (its optimised graph, read back), so fusions show (Gelu, LayerNormalization, Attention,
 * DynamicQuantizeMatMul / MatMulIntegerToFloat).
 *   node test-support/profile-model.js DIR [--candidates 20] [--long] [--session-options JSON]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const ort = require('onnxruntime-node');
const { onnx } = require('onnx-proto');
const { CrossEncoder } = require('../lib/cross-encoder');
const { INSTRUCTIONS, STATE, toolDescription, longToolDescription } = require('./bench-texts');

function feedsOf(model, inputs, dims) {
  return Object.fromEntries(
    model.session.inputNames.map((name) => [
      name,
      new ort.Tensor(
        'int64',
        BigInt64Array.from(inputs[name], (v) => BigInt(v)),
        dims,
      ),
    ]),
  );
}

/** Kernel microseconds per op type within the last model_run of an onnxruntime profile. */
function opTimes(profileFile) {
  const events = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
  const run = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').at(-1);
  const perOp = {};
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < run.ts || e.ts > run.ts + run.dur) continue;
    perOp[e.args.op_name] = (perOp[e.args.op_name] ?? 0) + e.dur;
  }
  return { runMicros: run.dur, perOp };
}

function opCounts(onnxFile) {
  const graph = onnx.ModelProto.decode(fs.readFileSync(onnxFile)).graph;
  const counts = {};
  for (const node of graph.node) {
    const type = node.domain ? `${node.domain}.${node.opType}` : node.opType;
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

/** Profiles one decision; returns `{runMs, shares: [[op, ms, percent]], optimisedOps}`. */
async function profileDecision(dir, { candidates = 20, long = false, sessionOptions = {} } = {}) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-profile-'));
  const model = await CrossEncoder.load(dir, { device: 'cpu' });
  try {
    const query = [...model.tokens(INSTRUCTIONS), ...model.tokens(JSON.stringify(STATE))];
    const describe = long ? longToolDescription : toolDescription;
    const pairs = Array.from({ length: candidates }, (_, i) => ({ query, candidate: model.tokens(describe(i)) }));
    // One session run over the decision's pairs padded to the longest (20 short pairs: one of the engine's runs).
    const { inputs, dims } = model.encoder.padded(model.encoder.rows(pairs));
    const optimised = path.join(scratch, 'optimised.onnx');
    const session = await ort.InferenceSession.create(model.onnxFile, {
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
      enableProfiling: true,
      profileFilePrefix: path.join(scratch, 'profile'),
      optimizedModelFilePath: optimised,
      ...sessionOptions,
    });
    const feeds = feedsOf(model, inputs, dims);
    await session.run(feeds);
    const started = performance.now();
    await session.run(feeds);
    const wallMs = performance.now() - started;
    session.endProfiling();
    await session.release();
    const profile = fs.readdirSync(scratch).find((f) => f.startsWith('profile') && f.endsWith('.json'));
    const { runMicros, perOp } = opTimes(path.join(scratch, profile));
    const kernelMicros = Object.values(perOp).reduce((a, b) => a + b, 0);
    const shares = Object.entries(perOp)
      .sort((a, b) => b[1] - a[1])
      .map(([op, us]) => [op, Number((us / 1000).toFixed(1)), Number(((100 * us) / kernelMicros).toFixed(1))]);
    return {
      dims,
      wallMs: Number(wallMs.toFixed(0)),
      runMs: Number((runMicros / 1000).toFixed(0)),
      kernelMs: Number((kernelMicros / 1000).toFixed(0)),
      shares,
      optimisedOps: opCounts(optimised),
    };
  } finally {
    await model.release();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

module.exports = { profileDecision };

if (require.main === module) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      candidates: { type: 'string', default: '20' },
      long: { type: 'boolean', default: false },
      'session-options': { type: 'string', default: '{}' },
    },
  });
  if (positionals.length !== 1) {
    console.error('usage: node test-support/profile-model.js DIR [--candidates 20] [--long] [--session-options JSON]');
    process.exit(1);
  }
  profileDecision(positionals[0], {
    candidates: Number(values.candidates),
    long: values.long,
    sessionOptions: JSON.parse(values['session-options']),
  })
    .then((result) => console.log(JSON.stringify(result, null, 1)))
    .catch((error) => {
      console.error(`profile-model: ${error.message}`);
      process.exit(1);
    });
}
