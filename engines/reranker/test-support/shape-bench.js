'use strict';
/**
 * `node bench.js --shape NAME [--dtype float32|int8|both] [--rounds MAX]`: the engine timed at a real model's
 * size. For each dtype, a shape-true model with random weights (test-support/shape-model.js) is generated
 * into a scratch folder (removed after), served by serve.js as a user serves it, and asked decisions over a
 * kept-alive connection, as the gateway asks: 2, 5, 20 and 90 short candidates (tool descriptions, about 78
 * tokens a pair), 20 and 90 long ones (about 302 tokens a pair), and 19 short with 1 long. Each cell runs one
 * warm-up, then at least 3 timed rounds, more while it stays within its time budget (up to MAX, default 20).
 * The same run measures this machine's MatMul rate (test-support/matmul-floor.js) and puts each cell's time
 * beside the time its multiply-adds take at that rate. Writes results/shape-<shape>.json.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { writeShapeModel } = require('./shape-model');
const { shapeSpec, flopsOf, DTYPES } = require('./shapes');
const { matmulFloor } = require('./matmul-floor');
const { INSTRUCTIONS, STATE, toolDescription, longToolDescription } = require('./bench-texts');
const { bodyOver, summary, post, startServer, machine } = require('./bench-support');
const { readModelFolder, maxLengthOf } = require('../lib/model-folder');
const { PairEncoder } = require('../lib/pair-encoder');

const CELLS = [
  { label: '2 short', short: 2, long: 0 },
  { label: '5 short', short: 5, long: 0 },
  { label: '20 short', short: 20, long: 0 },
  { label: '90 short', short: 90, long: 0 },
  { label: '20 long', short: 0, long: 20 },
  { label: '90 long', short: 0, long: 90 },
  { label: '19 short + 1 long', short: 19, long: 1 },
];
const CELL_BUDGET_MS = 5000;
const MIN_ROUNDS = 3;

const descriptionsOf = ({ short, long }) => [
  ...Array.from({ length: short }, (_, i) => toolDescription(i)),
  ...Array.from({ length: long }, (_, i) => longToolDescription(short + i)),
];

/** Each pair's token count, as the engine tokenises it (the model folder's own tokenizer). */
function pairLengths(dir, descriptions) {
  const files = readModelFolder(dir);
  const encoder = new PairEncoder(files, maxLengthOf(files));
  const query = [...encoder.tokens(INSTRUCTIONS), ...encoder.tokens(JSON.stringify(STATE))];
  return encoder
    .rows(descriptions.map((text) => ({ query, candidate: encoder.tokens(text) })))
    .map((row) => row.ids.length);
}

async function timeCell(ask, maxRounds) {
  const started = performance.now();
  await ask();
  const warmUp = performance.now() - started;
  const rounds = Math.min(maxRounds, Math.max(MIN_ROUNDS, Math.ceil(CELL_BUDGET_MS / warmUp)));
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await ask();
    samples.push(performance.now() - t);
  }
  return {
    ...summary(samples),
    min_ms: Number(Math.min(...samples).toFixed(1)),
    warm_up_ms: Number(warmUp.toFixed(1)),
  };
}

/** One cell: its time, tokens and FLOPs, and that time against the MatMul floor of its dtype. */
async function benchCell({ cell, spec, dir, floor }, { agent, port, maxRounds }) {
  const descriptions = descriptionsOf(cell);
  const body = bodyOver(descriptions);
  const timing = await timeCell(() => post(agent, port, body), maxRounds);
  const lengths = pairLengths(dir, descriptions);
  // What the decision needs: each pair at its own length; and what a batch padded to its longest pair computes.
  const flops = lengths.reduce((sum, length) => sum + flopsOf(spec, 1, length), 0);
  const paddedFlops = flopsOf(spec, lengths.length, Math.max(...lengths));
  const floorMs = (flops / (floor.gflops_per_second * 1e9)) * 1000;
  return {
    cell: cell.label,
    candidates: lengths.length,
    tokens: lengths.reduce((a, b) => a + b, 0),
    tokens_per_pair: Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length),
    longest_pair: Math.max(...lengths),
    ...timing,
    gflop: Number((flops / 1e9).toFixed(1)),
    gflop_padded_to_longest: Number((paddedFlops / 1e9).toFixed(1)),
    floor_ms: Number(floorMs.toFixed(1)),
    p50_over_floor: Number((timing.p50_ms / floorMs).toFixed(2)),
  };
}

async function benchDtype(spec, dtype, { floor, maxRounds }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `reranker-shape-${dtype}-`));
  let server;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { parameters, seconds } = writeShapeModel(dir, { shape: spec.name, dtype });
    console.log(
      `${spec.name} ${dtype}: ${(parameters / 1e6).toFixed(1)}M parameters generated in ${seconds.toFixed(1)} s`,
    );
    server = await startServer(dir);
    const cells = [];
    for (const cell of CELLS) {
      const line = await benchCell({ cell, spec, dir, floor }, { agent, port: server.port, maxRounds });
      cells.push(line);
      console.log(
        `  ${cell.label.padEnd(18)} ${String(line.longest_pair).padStart(3)} tokens at most a pair: p50 ${line.p50_ms.toFixed(0)} ms ` +
          `(min ${line.min_ms.toFixed(0)}, ${line.n} rounds), ${line.gflop} GFLOP, ${line.p50_over_floor}x the floor before`,
      );
    }
    return { generation_seconds: Number(seconds.toFixed(1)), parameters, cells };
  } finally {
    agent.destroy();
    server?.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Puts the cells against the better floor measured after them. */
function rescale(cells, before, after) {
  const factor = before.gflops_per_second / after.gflops_per_second;
  for (const cell of cells) {
    cell.floor_ms = Number((cell.floor_ms * factor).toFixed(1));
    cell.p50_over_floor = Number((cell.p50_ms / cell.floor_ms).toFixed(2));
  }
}

/** The figures of the dtypes not run this time, from an earlier run's file, so one dtype can be re-run alone. */
function earlierDtypes(out, shape, dtypes) {
  try {
    const earlier = JSON.parse(fs.readFileSync(out, 'utf8'));
    if (earlier.shape !== shape) return {};
    return Object.fromEntries(Object.entries(earlier.dtypes ?? {}).filter(([dtype]) => !dtypes.includes(dtype)));
  } catch {
    return {};
  }
}

async function benchShape(shape, { dtypes = DTYPES, maxRounds = 20 } = {}) {
  const spec = shapeSpec(shape);
  const unknown = dtypes.filter((dtype) => !DTYPES.includes(dtype));
  if (unknown.length > 0) throw new Error(`--dtype must be float32, int8 or both, not ${unknown.join(', ')}`);
  const out = path.join(__dirname, '..', 'results', `shape-${shape}.json`);
  const results = {
    shape,
    model: `random weights with the shapes and op structure of ${spec.repo} (test-support/shape-model.js); speed only, no accuracy`,
    flops_counted:
      'per pair at its own length: 2 per matmul weight per token, plus 4·L²·hidden per layer for attention (Q·Kᵀ and weights·V), plus the head once per pair; element-wise ops not counted',
    cell_budget_ms: CELL_BUDGET_MS,
    dtypes: earlierDtypes(out, shape, dtypes),
  };
  for (const dtype of dtypes) {
    // Each dtype carries its own machine, commit, date and load: a dtype can be re-run alone when other work
    // disturbed it, and the load at its end shows whether other work ran during it.
    const measured = machine(`node bench.js --shape ${shape} --dtype ${dtype}`);
    // The floor is the rate the cores give when nothing else takes them: the better of a measure before the
    // cells and one after (on a shared machine either can be slowed).
    const before = await matmulFloor(dtype);
    const figures = await benchDtype(spec, dtype, { floor: before, maxRounds });
    const after = await matmulFloor(dtype);
    console.log(
      `MatMul floor (${dtype}): ${before.gflops_per_second} GFLOP/s before, ${after.gflops_per_second} after`,
    );
    if (after.gflops_per_second > before.gflops_per_second) rescale(figures.cells, before, after);
    const floor = after.gflops_per_second > before.gflops_per_second ? after : before;
    const loadAtEnd = Number(os.loadavg()[0].toFixed(2));
    results.dtypes[dtype] = { ...measured, load_average_1m_at_end: loadAtEnd, floor, ...figures };
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), out)}`);
  return results;
}

module.exports = { benchShape, CELLS };
