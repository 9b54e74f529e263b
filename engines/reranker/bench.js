#!/usr/bin/env node
'use strict';
// Latency per decision for 2, 20 and 90 candidates, and pairs per second, of the reranker server on this
// machine's CPU: serve.js started as a user starts it, asked over HTTP with a kept-alive connection (as the
// gateway asks it), with the same candidates every time (an agent's tool list) and with new candidate texts
// every time, beside the same decision in this process without HTTP. On the TINY TEST MODEL (test-support/),
// whose model run costs next to nothing, so the figures are the server's overheads (HTTP, JSON, tokenising,
// tensors, onnxruntime's call), not what a real cross-encoder costs.
//   node bench.js [--rounds 200] [--model DIR]      writes results/latency.json
// At a real model's size, with a generated shape-true model (random weights; test-support/shape-model.js):
//   node bench.js --shape gte-modernbert|minilm-l6 [--dtype float32|int8|both] [--rounds MAX]
//                                                  writes results/shape-<shape>.json (see test-support/shape-bench.js)
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { writeTinyModel } = require('./test-support/tiny-model');
const { benchWords } = require('./test-support/bench-texts');
const { summary, post, startServer, machine } = require('./test-support/bench-support');
const { CrossEncoder } = require('./lib/cross-encoder');
const { Reranker } = require('./lib/reranker');
// A naga-like decision: an agent's request and tool descriptions of about twenty words each.
const { decisionBody } = require('./lib/decision-texts');

const { values } = parseArgs({
  options: {
    rounds: { type: 'string' },
    model: { type: 'string' },
    shape: { type: 'string' },
    dtype: { type: 'string', default: 'both' },
  },
});
const ROUNDS = Number(values.rounds ?? 200);
const CANDIDATES = [2, 20, 90];
const WARMUP = 100;

async function timed(rounds, task) {
  const samples = [];
  for (let i = 0; i < WARMUP + rounds; i++) {
    const started = performance.now();
    await task();
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  return samples;
}

async function main() {
  const scratch = values.model ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-bench-'));
  const model = values.model ?? writeTinyModel(scratch, { extraWords: benchWords(), maxLength: 512 });
  const { child, port } = await startServer(model);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const local = new Reranker(await CrossEncoder.load(model, { device: 'cpu' }));
  const results = {
    ...machine(`node bench.js --rounds ${ROUNDS}${values.model ? ' --model DIR' : ''}`),
    model: values.model
      ? path.basename(model)
      : 'the tiny test model (test-support/tiny-model.js): a score lookup and a mean, no transformer',
    rounds: ROUNDS,
    decisions: {},
  };
  try {
    for (const candidates of CANDIDATES) {
      const body = decisionBody(candidates);
      const repeated = summary(await timed(ROUNDS, () => post(agent, port, body)));
      // Candidate texts never seen before (a round number in each): every one is tokenised.
      let round = 0;
      const fresh = summary(await timed(ROUNDS, () => post(agent, port, decisionBody(candidates, `round ${round++}`))));
      // The repeated decision in this process, without HTTP and JSON: what the server adds is the difference.
      const parsed = JSON.parse(body);
      const inProcess = summary(await timed(ROUNDS, () => local.answer(parsed)));
      const { usage } = await post(agent, port, body);
      results.decisions[candidates] = {
        over_http: repeated,
        over_http_new_texts: fresh,
        in_process: inProcess,
        pairs_per_second: Math.round((candidates * 1000) / repeated.p50_ms),
        pairs_per_second_new_texts: Math.round((candidates * 1000) / fresh.p50_ms),
        tokens_per_decision: usage.input_tokens,
      };
      const line = results.decisions[candidates];
      console.log(
        `${String(candidates).padStart(3)} candidates, ${usage.input_tokens} tokens: p50 ${repeated.p50_ms} ms over HTTP (${line.pairs_per_second} pairs/s), ` +
          `${fresh.p50_ms} ms with new texts (${line.pairs_per_second_new_texts} pairs/s), ${inProcess.p50_ms} ms in process`,
      );
    }
  } finally {
    agent.destroy();
    child.kill();
    await local.model.release();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
  const out = path.join(__dirname, 'results', 'latency.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

const run = values.shape
  ? () =>
      require('./test-support/shape-bench').benchShape(values.shape, {
        dtypes: values.dtype === 'both' ? ['float32', 'int8'] : [values.dtype],
        maxRounds: values.rounds === undefined ? undefined : ROUNDS,
      })
  : main;

run().catch((error) => {
  console.error(`bench: ${error.message}`);
  process.exit(1);
});
