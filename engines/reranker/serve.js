#!/usr/bin/env node
'use strict';
// The reranker server in the foreground: loads the model folder, times itself on it (a few seconds, reported in
// one log line and by /health), then answers on 127.0.0.1 only.
//   node serve.js --model DIR [--port 8790] [--device auto|cpu|cuda] [--max-length N] [--name NAME] [--log-decisions]
//                 [--max-candidate-tokens N] [--shortlist K]
// start.js runs this in the background for a login entry; SYSTEM1_SYSTEMONE_API_KEY, when set, is the bearer
// token decisions must carry (set the same value in the gateway's environment).
const { parseArgs } = require('node:util');
const { CrossEncoder, ModelFolderError } = require('./lib/cross-encoder');
const { Reranker, DEFAULT_MAX_CANDIDATE_TOKENS } = require('./lib/reranker');
const LIMITS = require('./lib/limits');
const { createServer, listen, HOST } = require('./lib/http-server');
const { timeDecisions, timingLine } = require('./lib/self-timing');

const DEFAULT_PORT = 8790;
const KEY_VARIABLE = 'SYSTEM1_SYSTEMONE_API_KEY';

function fail(message) {
  console.error(`reranker: ${message}`);
  process.exit(1);
}

function wholeNumber(name, text, low, high) {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < low || Number(text) > high)
    fail(`--${name} must be a whole number from ${low} to ${high}, not ${JSON.stringify(text)}`);
  return Number(text);
}

function readSettings(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string' },
        port: { type: 'string' },
        device: { type: 'string' },
        'max-length': { type: 'string' },
        name: { type: 'string' },
        'log-decisions': { type: 'boolean', default: false },
        'max-candidate-tokens': { type: 'string' },
        shortlist: { type: 'string' },
      },
    }));
  } catch (error) {
    fail(
      `${error.message} (it takes --model DIR, --port N, --device auto|cpu|cuda, --max-length N, --name NAME, --log-decisions, --max-candidate-tokens N, --shortlist K)`,
    );
  }
  if (!values.model)
    fail('--model DIR is required: the folder with model.onnx (or onnx/model.onnx), tokenizer.json and config.json');
  return {
    model: values.model,
    port: wholeNumber('port', values.port, 0, 65535) ?? DEFAULT_PORT,
    device: values.device ?? 'auto',
    maxLength: wholeNumber('max-length', values['max-length'], 8, 1_000_000),
    name: values.name,
    logDecisions: values['log-decisions'],
    maxCandidateTokens:
      wholeNumber('max-candidate-tokens', values['max-candidate-tokens'], 1, 1_000_000) ?? DEFAULT_MAX_CANDIDATE_TOKENS,
    // At least 2: over one option the cross-encoder would decide nothing, and its confidence would read 1.
    shortlist: wholeNumber('shortlist', values.shortlist, 2, LIMITS.maxOptions),
  };
}

/**
 * The bearer token decisions must carry, or undefined when the variable is unset. Set but blank is a mistake
 * (an empty secret from a template or a script), not a request to turn the check off, so it stops the start.
 */
function readApiKey(value) {
  if (value === undefined) return undefined;
  if (value.trim() === '') fail(`${KEY_VARIABLE} is set but blank; give it a key, or unset it to run without one`);
  return value.trim();
}

async function main() {
  const settings = readSettings(process.argv.slice(2));
  const apiKey = readApiKey(process.env[KEY_VARIABLE]);
  let model;
  try {
    model = await CrossEncoder.load(settings.model, settings);
  } catch (error) {
    fail(error instanceof ModelFolderError ? error.message : `could not load the model: ${error.message}`);
  }
  if (model.deviceNote) console.error(`reranker: ${model.deviceNote}`);
  const reranker = new Reranker(model, {
    maxCandidateTokens: settings.maxCandidateTokens,
    shortlist: settings.shortlist,
  });
  // A few seconds on the model it will serve, before it listens: the launcher's wait covers it, and /health
  // reports it from the first answer on. A failure here costs the figures, never the engine.
  const timing = await timeDecisions(reranker).catch((error) => {
    console.error(`reranker: the self-timing failed (${error.message}); serving without its figures`);
    return undefined;
  });
  if (timing) console.log(`reranker: self-timing: ${timingLine(timing)}`);
  const server = createServer({
    reranker,
    timing,
    apiKey,
    logDecisions: settings.logDecisions,
    log: (line) => console.log(`reranker: ${line}`),
  });
  let port;
  try {
    port = await listen(server, settings.port);
  } catch (error) {
    fail(
      error.code === 'EADDRINUSE'
        ? `port ${settings.port} on ${HOST} is already in use`
        : `could not listen on ${HOST}:${settings.port}: ${error.message}`,
    );
  }
  console.log(
    `reranker: serving ${model.name} on http://${HOST}:${port} (${model.device}, up to ${model.maxLength} tokens a pair${apiKey ? ', bearer token required' : ''})`,
  );
  const stop = () => server.close(() => model.release().finally(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main();
