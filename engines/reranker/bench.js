#!/usr/bin/env node
'use strict';
// Latency per decision for 2, 20 and 90 candidates, and pairs per second, of the reranker server on this
// machine's CPU: serve.js started as a user starts it, asked over HTTP with a kept-alive connection (as the
// gateway asks it), with the same candidates every time (an agent's tool list) and with new candidate texts
// every time, beside the same decision in this process without HTTP. On the TINY TEST MODEL (test-support/),
// whose model run costs next to nothing, so the figures are the server's overheads (HTTP, JSON, tokenising,
// tensors, onnxruntime's call), not what a real cross-encoder costs.
//   node bench.js [--rounds 200] [--model DIR]      writes results/latency.json
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { writeTinyModel } = require('./test-support/tiny-model');
const { CrossEncoder } = require('./lib/cross-encoder');
const { Reranker } = require('./lib/reranker');
// A naga-like decision: an agent's request and tool descriptions of about twenty words each.
const { STATE, INSTRUCTIONS, toolDescription, decisionBody } = require('./lib/decision-texts');

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' }, model: { type: 'string' } } });
const ROUNDS = Number(values.rounds);
const CANDIDATES = [2, 20, 90];
const WARMUP = 100;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms) => Number(ms.toFixed(3));
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
  };
}

function post(agent, port, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/systemone',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(Buffer.concat(chunks)))
            : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function timed(rounds, task) {
  const samples = [];
  for (let i = 0; i < WARMUP + rounds; i++) {
    const started = performance.now();
    await task();
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  return samples;
}

function startServer(model) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(__dirname, 'serve.js'), '--model', model, '--port', '0', '--device', 'cpu'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.on('data', (chunk) => {
      const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(chunk))?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once('exit', (code) => reject(new Error(`serve.js exited with ${code}`)));
  });
}

function machine() {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: __dirname, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  const dirty = git(['status', '--porcelain', '--', '.']);
  return {
    commit: `${git(['rev-parse', '--short', 'HEAD']) ?? 'unknown'}${dirty ? ' (with uncommitted changes to engines/reranker)' : ''}`,
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model.trim(),
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.platform()} ${os.release()}`,
      node: process.version,
      // Other work on the machine shows in the tails (p90, p99): the 1-minute load when the run began.
      load_average_1m: Number(os.loadavg()[0].toFixed(2)),
    },
    date: new Date().toISOString(),
    command: `node bench.js --rounds ${ROUNDS}${values.model ? ' --model DIR' : ''}`,
  };
}

/** The words of the bench's texts, so the tiny model's vocabulary has them (one lookup a word, as a real one). */
function benchWords() {
  const text = `${INSTRUCTIONS} ${JSON.stringify(STATE)} ${toolDescription(0)}`.toLowerCase();
  return [
    ...new Set(text.split(/[^a-z]+/).filter(Boolean)),
    ...'0123456789'.split(''),
    ...'0123456789'.split('').map((d) => `##${d}`),
  ];
}

async function main() {
  const scratch = values.model ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-bench-'));
  const model = values.model ?? writeTinyModel(scratch, { extraWords: benchWords(), maxLength: 512 });
  const { child, port } = await startServer(model);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const local = new Reranker(await CrossEncoder.load(model, { device: 'cpu' }));
  const results = {
    ...machine(),
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
