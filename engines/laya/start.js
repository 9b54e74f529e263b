#!/usr/bin/env node
'use strict';
// Starts laya-serve for the System-1 gateway: on 127.0.0.1 only (laya-serve's own default is 0.0.0.0),
// preloading the pinned checkpoint, logging to laya-serve.log next to this file, and doing nothing when the port
// is already taken (an engine is probably running). start.sh and start.ps1 run this, so every platform starts
// the engine the same way. --model and --port (or LAYA_MODELS and LAYA_PORT) override the defaults; laya-serve
// picks CUDA or MPS when the machine has them, the CPU otherwise.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');

const HOST = '127.0.0.1';
const here = __dirname;
const log = path.join(here, 'laya-serve.log');

function fail(message) {
  console.error(`start: ${message}`);
  process.exit(1);
}

function readSettings() {
  let values;
  try {
    ({ values } = parseArgs({ options: { model: { type: 'string' }, port: { type: 'string' } } }));
  } catch (error) {
    fail(`${error.message} (it takes --model NAME and --port N)`);
  }
  const port = values.port ?? process.env.LAYA_PORT ?? '8765';
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    fail(`the port must be a number from 1 to 65535, not ${JSON.stringify(port)}`);
  return { port: Number(port), models: values.model ?? process.env.LAYA_MODELS ?? 'typed-decisions' };
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

/** laya-serve from the venv /system1:choose-model makes next to this file, else from PATH. */
function findServe() {
  const inVenv = [path.join(here, 'venv', 'bin', 'laya-serve'), path.join(here, 'venv', 'Scripts', 'laya-serve.exe')];
  // pip makes an .exe on Windows; a .cmd stand-in would need a shell, which Node will not start it without
  const program = process.platform === 'win32' ? 'laya-serve.exe' : 'laya-serve';
  const onPath = (process.env.PATH || '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, program));
  return [...inVenv, ...onPath].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

async function main() {
  const { port, models } = readSettings();
  if (await portTaken(port)) {
    console.log(`Port ${port} on ${HOST} is already in use: leaving the running engine alone.`);
    return;
  }
  const serve = findServe();
  if (!serve)
    fail(
      `laya-serve is not installed: /system1:choose-model installs it into ${path.join(here, 'venv')} (pip install laya)`,
    );
  const output = fs.openSync(log, 'a');
  const engine = spawn(serve, [], {
    detached: true, // the engine outlives this launcher, and a login entry's console
    windowsHide: true,
    stdio: ['ignore', output, output],
    env: { ...process.env, LAYA_HOST: HOST, LAYA_PORT: String(port), LAYA_MODELS: models, LAYA_PRELOAD: '1' },
  });
  engine.once('error', (error) => fail(`could not start ${serve}: ${error.message}`));
  engine.once('spawn', () => {
    engine.unref();
    console.log(`laya-serve starting on http://${HOST}:${port} (checkpoints: ${models}); log: ${log}`);
  });
}

main();
