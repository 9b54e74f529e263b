#!/usr/bin/env node
'use strict';
// What a decision costs with a model on this machine: the engine's self-timing (lib/self-timing.js, what
// serve.js runs before it listens and /health reports), on its own, e.g. after a pull. A few seconds.
//   node time.js --model DIR [--device auto|cpu|cuda] [--json]
// --json prints the timing object /health carries, alone on stdout; otherwise the figures and, when a decision
// is far from System-1 speed, what to do. Exit 1, with the reason on stderr, when the model does not load.
const { parseArgs } = require('node:util');
const { CrossEncoder, ModelFolderError } = require('./lib/cross-encoder');
const { Reranker } = require('./lib/reranker');
const { timeDecisions, timingLines } = require('./lib/self-timing');

function fail(message) {
  console.error(`time: ${message}`);
  process.exit(1);
}

function readSettings(argv) {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { model: { type: 'string' }, device: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    if (!values.model) fail('--model DIR is required: the model folder serve.js would serve');
    return { model: values.model, device: values.device ?? 'auto', json: values.json };
  } catch (error) {
    return fail(`${error.message} (it takes --model DIR, --device auto|cpu|cuda and --json)`);
  }
}

async function main() {
  const settings = readSettings(process.argv.slice(2));
  let model;
  try {
    model = await CrossEncoder.load(settings.model, { device: settings.device });
  } catch (error) {
    fail(error instanceof ModelFolderError ? error.message : `could not load the model: ${error.message}`);
  }
  if (model.deviceNote) console.error(`time: ${model.deviceNote}`);
  try {
    const timing = await timeDecisions(new Reranker(model));
    if (settings.json) console.log(JSON.stringify({ model: model.name, device: model.device, ...timing }));
    else {
      const [summary, ...advice] = timingLines(timing);
      console.log([`${model.name} on ${model.device}: ${summary}`, ...advice].join('\n'));
    }
  } finally {
    await model.release();
  }
}

main().catch((error) => fail(`the timing failed: ${error.message}`));
