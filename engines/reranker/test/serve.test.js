'use strict';
// serve.js as a user starts it: what it refuses to start with, said in one line on stderr with a non-zero exit.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFile, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { tinyModelDir } = require('../test-support/server');

const SERVE = path.resolve(__dirname, '..', 'serve.js');

/** serve.js run to its end (a start it refuses), with only PATH and `env` in its environment. */
function serve(args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SERVE, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? error.code : 0, stdout, stderr });
      },
    );
  });
}

test('a blank SYSTEM1_SYSTEMONE_API_KEY stops the start instead of turning the token check off', async () => {
  for (const blank of ['   ', '', '\t\n']) {
    const run = await serve(['--model', tinyModelDir(), '--port', '0'], { SYSTEM1_SYSTEMONE_API_KEY: blank });
    assert.equal(run.code, 1, JSON.stringify(blank));
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      'reranker: SYSTEM1_SYSTEMONE_API_KEY is set but blank; give it a key, or unset it to run without one\n',
    );
  }
});

/** serve.js started in the background; resolves once it says it serves, with its stdout so far and the port. */
function serveUntilListening(args, env = {}) {
  const engine = spawn(process.execPath, [SERVE, ...args], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  const listening = new Promise((resolve, reject) => {
    engine.stdout.on('data', (chunk) => {
      stdout += chunk;
      const port = /^reranker: serving .* on http:\/\/127\.0\.0\.1:(\d+) .*\n/m.exec(stdout)?.[1];
      if (port) resolve({ stdout, port: Number(port) });
    });
    engine.once('exit', (code) => reject(new Error(`serve.js exited (${code}) before serving: ${stdout}`)));
  });
  return { engine, listening };
}

test('with a key set, it serves and says a bearer token is required', async () => {
  const { engine, listening } = serveUntilListening(['--model', tinyModelDir(), '--port', '0'], {
    SYSTEM1_SYSTEMONE_API_KEY: ' sk-serve-test ',
  });
  try {
    const { stdout } = await listening;
    assert.match(
      stdout,
      /^reranker: self-timing: .*\nreranker: serving .* on http:\/\/127\.0\.0\.1:\d+ \(cpu, up to 64 tokens a pair, bearer token required\)\n$/,
    );
    assert.ok(!stdout.includes('sk-serve-test'));
  } finally {
    engine.kill();
  }
});

test('it times itself before it listens: one log line, and the figures in /health', async () => {
  const { engine, listening } = serveUntilListening(['--model', tinyModelDir(), '--port', '0', '--device', 'cpu']);
  try {
    const { stdout, port } = await listening;
    const timingLines = stdout.split('\n').filter((line) => line.startsWith('reranker: self-timing: '));
    assert.equal(timingLines.length, 1, stdout);
    assert.match(
      timingLines[0],
      /a decision of 5 candidates takes ~[\d.,]+ ms, 20 ~[\d.,]+ ms, 90 ~[\d.,]+ ms on this machine \(predictions from a measured cost per candidate: .* decisions each of 1 and 8 candidates/,
    );
    const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    assert.equal(health.status, 'ok');
    assert.deepEqual(Object.keys(health.timing.predicted_ms), ['5', '20', '90']);
    assert.ok(health.timing.per_candidate_ms > 0);
    assert.ok(health.timing.runs >= 1);
    assert.ok(!Number.isNaN(Date.parse(health.timing.measured_at)));
    // The line and /health report the same run.
    assert.ok(timingLines[0].includes(`20 ~${health.timing.predicted_ms[20].toLocaleString('en-US')} ms`));
  } finally {
    engine.kill();
  }
});

test('a tokenizer.json with an empty vocabulary is refused, saying so', async () => {
  const model = tinyModelDir();
  const file = path.join(model, 'tokenizer.json');
  const tokenizer = JSON.parse(fs.readFileSync(file, 'utf8'));
  tokenizer.model.vocab = {};
  fs.writeFileSync(file, JSON.stringify(tokenizer));
  const run = await serve(['--model', model, '--port', '0']);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(
    run.stderr,
    `reranker: ${file} could not be used: its vocabulary is empty (no entry besides the special tokens), so every text would read as unknown or padding\n`,
  );
});

test('--max-candidate-tokens and --shortlist reach the server, and /health says them', async () => {
  const engine = spawn(
    process.execPath,
    [SERVE, '--model', tinyModelDir(), '--port', '0', '--max-candidate-tokens', '100', '--shortlist', '20'],
    { env: { PATH: process.env.PATH } },
  );
  try {
    let stdout = '';
    const port = await new Promise((resolve, reject) => {
      engine.stdout.on('data', (chunk) => {
        stdout += chunk;
        const found = /http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (found) resolve(Number(found[1]));
      });
      engine.once('exit', (code) => reject(new Error(`serve.js exited (${code}) before serving`)));
    });
    const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    assert.equal(health.max_candidate_tokens, 100);
    assert.equal(health.shortlist.top_k, 20);
    assert.match(health.shortlist.how, /probability 0/);
  } finally {
    engine.kill();
  }
});

test('a --max-candidate-tokens or --shortlist that is not a usable number stops the start, naming the option', async () => {
  for (const [option, value, range] of [
    ['--max-candidate-tokens', '0', 'from 1 to 1000000'],
    ['--max-candidate-tokens', 'all', 'from 1 to 1000000'],
    ['--shortlist', '1', 'from 2 to 256'],
    ['--shortlist', '300', 'from 2 to 256'],
  ]) {
    const run = await serve(['--model', tinyModelDir(), '--port', '0', option, value]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `reranker: ${option} must be a whole number ${range}, not "${value}"\n`);
  }
});
