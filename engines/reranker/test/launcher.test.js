'use strict';
// start.sh as a user or a login entry runs it, from a copy of the engine folder (as /system1:choose-model
// installs it), over the tiny model: it serves in the background on 127.0.0.1, logs beside itself, leaves a
// running engine alone and says plainly what is missing. (start.ps1 passes -Model, -Port and -Device to the
// same start.js.)
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { tinyModelDir, request } = require('../test-support/server');

const ENGINE = path.resolve(__dirname, '..');
const started = [];
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-launcher-'));

test.after(() => {
  for (const pid of started) {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** A copy of the engine folder, its installed packages linked in unless `installed` is false. */
function engineFolder({ installed = true } = {}) {
  const folder = path.join(fs.mkdtempSync(path.join(root, 'install-')), 'reranker');
  fs.mkdirSync(folder);
  for (const entry of ['start.sh', 'start.js', 'serve.js', 'lib', 'package.json'])
    fs.cpSync(path.join(ENGINE, entry), path.join(folder, entry), { recursive: true });
  if (installed) fs.symlinkSync(path.join(ENGINE, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

function start(folder, args = [], env = {}) {
  return new Promise((resolve) => {
    execFile(
      'sh',
      [path.join(folder, 'start.sh'), ...args],
      { env: { PATH: process.env.PATH, HOME: root, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const pid = /\(pid (\d+)\)/.exec(stdout)?.[1];
        if (pid) started.push(Number(pid));
        resolve({ code: error ? error.code : 0, stdout, stderr });
      },
    );
  });
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

test('starts the server in the background on 127.0.0.1 with the model given, logging beside itself, and leaves it alone the second time', async () => {
  const folder = engineFolder();
  const model = tinyModelDir();
  const port = await freePort();
  const launched = await start(folder, ['--model', model, '--port', String(port)]);
  assert.equal(launched.stderr, '');
  assert.equal(launched.code, 0);
  assert.match(
    launched.stdout,
    new RegExp(
      `^reranker serving ${path.basename(model)} on http://127\\.0\\.0\\.1:${port} \\(pid \\d+\\); log: ${path.join(folder, 'reranker.log')}\\n$`,
    ),
  );
  const health = await request(port, { method: 'GET', path: '/health' });
  assert.equal(health.body.model, path.basename(model));
  const decision = await request(port, {
    body: {
      state: {},
      questions: { pick: { type: 'choice', instructions: 'Which?', criteria: ['refunds', 'later'] } },
    },
  });
  assert.equal(decision.body.answers.pick.choice, 'refunds');
  assert.match(
    fs.readFileSync(path.join(folder, 'reranker.log'), 'utf8'),
    /reranker: serving .* on http:\/\/127\.0\.0\.1:/,
  );

  const again = await start(folder, ['--model', model, '--port', String(port)]);
  assert.deepEqual(again, {
    code: 0,
    stdout: `Port ${port} on 127.0.0.1 is already in use: leaving the running engine alone.\n`,
    stderr: '',
  });
});

test('takes the model and port from RERANKER_MODEL and RERANKER_PORT, and the model folder beside it by default', async () => {
  const port = await freePort();
  const fromEnv = await start(engineFolder(), [], { RERANKER_MODEL: tinyModelDir(), RERANKER_PORT: String(port) });
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.equal((await request(port, { method: 'GET', path: '/health' })).status, 200);

  const folder = engineFolder();
  fs.cpSync(tinyModelDir(), path.join(folder, 'model'), { recursive: true });
  const besidePort = await freePort();
  const beside = await start(folder, ['--port', String(besidePort)]);
  assert.equal(beside.code, 0, beside.stderr);
  assert.equal((await request(besidePort, { method: 'GET', path: '/health' })).body.model, 'model');
});

test('says what is missing: the packages, the model folder, or a usable model (from the log)', async () => {
  const port = String(await freePort());
  const bare = engineFolder({ installed: false });
  const noPackages = await start(bare, ['--model', tinyModelDir(), '--port', port]);
  assert.equal(noPackages.code, 1);
  assert.equal(
    noPackages.stderr,
    `start: the reranker's packages are not installed: run npm ci --omit=dev in ${bare}\n`,
  );

  const folder = engineFolder();
  const noModel = await start(folder, ['--port', port]);
  assert.equal(noModel.code, 1);
  assert.match(
    noModel.stderr,
    new RegExp(
      `^start: the model folder ${path.join(folder, 'model')} does not exist: download or export a cross-encoder to ONNX there`,
    ),
  );

  const broken = tinyModelDir();
  fs.rmSync(path.join(broken, 'model.onnx'));
  const unusable = await start(folder, ['--model', broken, '--port', port]);
  assert.equal(unusable.code, 1);
  assert.match(unusable.stderr, /^start: the reranker stopped while starting \(exit 1\):\n/);
  assert.match(
    unusable.stderr,
    /has no model\.onnx, onnx\/model\.onnx nor onnx\/model_quantized\.onnx: pull one \(system1 engine pull reranker\)/,
  );
});

test('names a bad port, device or option', async () => {
  const folder = engineFolder();
  assert.deepEqual(await start(folder, ['--port', '70000']), {
    code: 1,
    stdout: '',
    stderr: 'start: the port must be a number from 1 to 65535, not "70000"\n',
  });
  assert.deepEqual(await start(folder, ['--device', 'gpu']), {
    code: 1,
    stdout: '',
    stderr: 'start: the device must be auto, cpu or cuda, not "gpu"\n',
  });
  const unknown = await start(folder, ['--host', '0.0.0.0']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Unknown option '--host'/);
});
