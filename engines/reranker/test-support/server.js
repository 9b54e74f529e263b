'use strict';
/** The reranker server in this process on 127.0.0.1:0 over a tiny model, and raw HTTP to it. */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker } = require('../lib/reranker');
const { createServer, listen } = require('../lib/http-server');
const { writeTinyModel } = require('./tiny-model');

let root;

/** A fresh folder with the tiny model in it (all removed when the process ends). */
function tinyModelDir(options = {}) {
  if (!root) {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'reranker-test-'));
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  }
  return writeTinyModel(fs.mkdtempSync(path.join(root, 'tiny-')), options);
}

/**
 * Starts a server over the tiny model; `runs` counts the model's session runs (the load's check excluded).
 */
async function startServer({ apiKey, maxQueued, model: options = {}, load = {} } = {}) {
  const model = await CrossEncoder.load(tinyModelDir(options), { device: 'cpu', ...load });
  let runs = 0;
  const run = model.session.run.bind(model.session);
  model.session.run = (...args) => {
    runs++;
    return run(...args);
  };
  const reranker = new Reranker(model, maxQueued === undefined ? {} : { maxQueued });
  const server = createServer({ reranker, apiKey, log: () => undefined });
  const port = await listen(server, 0);
  return {
    port,
    model,
    reranker,
    runs: () => runs,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => model.release().then(resolve));
      }),
  };
}

/**
 * One request with exactly the headers given (Host included, which fetch will not let a caller set);
 * resolves with status, headers and the body parsed as JSON.
 */
function request(port, { method = 'POST', path: route = '/v1/systemone', headers = {}, body } = {}) {
  const payload =
    body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const sent = {
    host: `127.0.0.1:${port}`,
    ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
    ...headers,
  };
  for (const [name, value] of Object.entries(sent)) if (value === undefined) delete sent[name];
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: route, headers: sent, agent: false },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode, headers: response.headers, body: json, text });
        });
      },
    );
    // The server may answer (413) and close before it has read all of a large body.
    req.on('error', (error) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

module.exports = { startServer, request, tinyModelDir };
