#!/usr/bin/env node
'use strict';
// Starts the reranker server (serve.js) for the System-1 gateway in the background: on 127.0.0.1 only,
// logging to reranker.log next to this file, doing nothing when the port is already taken (an engine is
// probably running), and waiting until the model has loaded so a broken model folder is reported here, not
// only in the log. start.sh and start.ps1 run this, so every platform starts the engine the same way.
// --model DIR and --port N (or RERANKER_MODEL and RERANKER_PORT) override the defaults: the `model` folder
// next to this file and port 8790; --device auto|cpu|cuda (or RERANKER_DEVICE) picks the device; --shortlist K and
// --max-candidate-tokens N go to serve.js as they are.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');

const HOST = '127.0.0.1';
const here = __dirname;
const log = path.join(here, 'reranker.log');
/**
 * A large model on a slow disk takes a while to load, and the engine then times itself (lib/self-timing.js:
 * a 3 s budget, overrun by at most one round) before it listens; past this the launcher stops waiting, not the
 * engine.
 */
const LOAD_WAIT_MS = 120_000;

function fail(message) {
  console.error(`start: ${message}`);
  process.exit(1);
}

function readSettings() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        model: { type: 'string' },
        port: { type: 'string' },
        device: { type: 'string' },
        shortlist: { type: 'string' },
        'max-candidate-tokens': { type: 'string' },
      },
    }));
  } catch (error) {
    fail(
      `${error.message} (it takes --model DIR, --port N, --device auto|cpu|cuda, --shortlist K and --max-candidate-tokens N)`,
    );
  }
  const port = values.port ?? process.env.RERANKER_PORT ?? '8790';
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    fail(`the port must be a number from 1 to 65535, not ${JSON.stringify(port)}`);
  const device = values.device ?? process.env.RERANKER_DEVICE ?? 'auto';
  if (!['auto', 'cpu', 'cuda'].includes(device))
    fail(`the device must be auto, cpu or cuda, not ${JSON.stringify(device)}`);
  return {
    port: Number(port),
    model: path.resolve(values.model ?? process.env.RERANKER_MODEL ?? path.join(here, 'model')),
    device,
    // Checked by serve.js, which says what is wrong in the log this launcher points at.
    serveOptions: [
      ...(values.shortlist === undefined ? [] : ['--shortlist', values.shortlist]),
      ...(values['max-candidate-tokens'] === undefined
        ? []
        : ['--max-candidate-tokens', values['max-candidate-tokens']]),
    ],
  };
}

/** Something already answers on the port: most likely an engine started earlier, which is left alone. */
function portTaken(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: HOST, timeout: 1000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** The files the server needs, checked here so the common mistakes get a plain answer at once. */
function checkInstall(model) {
  if (!fs.existsSync(path.join(here, 'node_modules', 'onnxruntime-node'))) {
    fail(`the reranker's packages are not installed: run npm ci --omit=dev in ${here}`);
  }
  if (!fs.existsSync(model) || !fs.statSync(model).isDirectory()) {
    fail(
      `the model folder ${model} does not exist: download or export a cross-encoder to ONNX there (see README.md beside this file), or pass --model DIR`,
    );
  }
}

function healthy(port) {
  return fetch(`http://${HOST}:${port}/health`, { signal: AbortSignal.timeout(2000) })
    .then((response) => response.ok)
    .catch(() => false);
}

/** The last lines of the log, to say why the server stopped. */
function logTail(lines = 5) {
  try {
    return fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function main() {
  const { port, model, device, serveOptions } = readSettings();
  if (await portTaken(port)) {
    console.log(`Port ${port} on ${HOST} is already in use: leaving the running engine alone.`);
    return;
  }
  checkInstall(model);
  const output = fs.openSync(log, 'a');
  const engine = spawn(
    process.execPath,
    [path.join(here, 'serve.js'), '--model', model, '--port', String(port), '--device', device, ...serveOptions],
    {
      detached: true, // the engine outlives this launcher, and a login entry's console
      windowsHide: true,
      stdio: ['ignore', output, output],
    },
  );
  let exited = null;
  engine.once('exit', (code) => (exited = code ?? 'a signal'));
  await new Promise((resolve, reject) => engine.once('spawn', resolve).once('error', reject)).catch((error) =>
    fail(`could not start ${process.execPath}: ${error.message}`),
  );
  const deadline = Date.now() + LOAD_WAIT_MS;
  while (exited === null && Date.now() < deadline) {
    if (await healthy(port)) {
      engine.unref();
      console.log(
        `reranker serving ${path.basename(model)} on http://${HOST}:${port} (pid ${engine.pid}); log: ${log}`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (exited !== null) fail(`the reranker stopped while starting (exit ${exited}):\n${logTail()}`);
  engine.unref();
  console.log(
    `reranker still loading ${path.basename(model)} after ${LOAD_WAIT_MS / 1000} s; it will serve on http://${HOST}:${port} once loaded (pid ${engine.pid}); log: ${log}`,
  );
}

main();
