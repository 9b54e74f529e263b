'use strict';
/**
 * What bench.js's runs share: serve.js started as a user starts it, decisions POSTed to it over a kept-alive
 * connection (as the gateway asks), percentiles, and the machine, commit and load a result was measured on.
 */
const { execFileSync, spawn } = require('node:child_process');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { INSTRUCTIONS, STATE } = require('./bench-texts');

const ENGINE = path.join(__dirname, '..');

/** A request of one choice question over `descriptions` (tool_0, tool_1, ...), as JSON. */
function bodyOver(descriptions) {
  const criteria = Object.fromEntries(descriptions.map((text, i) => [`tool_${i}`, text]));
  return JSON.stringify({
    state: STATE,
    questions: { tool: { type: 'choice', instructions: INSTRUCTIONS, criteria } },
  });
}

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

function startServer(model) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ENGINE, 'serve.js'), '--model', model, '--port', '0', '--device', 'cpu'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child.stdout.on('data', (chunk) => {
      const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(chunk))?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once('exit', (code) => reject(new Error(`serve.js exited with ${code}`)));
  });
}

/** The commit, machine and date of a result, and the command that wrote it. */
function machine(command) {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: ENGINE, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  // The bench's own results/ files are not code: writing one leaves the run's code as committed.
  const dirty = git(['status', '--porcelain', '--', '.', ':!results']);
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
    command,
  };
}

module.exports = { bodyOver, summary, post, startServer, machine };
