#!/usr/bin/env node
'use strict';
// What the optional shortlist (lib/shortlist.js, --shortlist K) saves on a decision over 90 tools, in process:
// the same 90-candidate decision with and without the shortlist, beside a decision over K candidates, and the
// word stage alone. RESULTS.md quotes it for a generated real-size model:
//   node test-support/shape-model.js DIR --shape gte-modernbert [--dtype int8]
//   node test-support/shortlist-cost.js DIR [K]
const { CrossEncoder } = require('../lib/cross-encoder');
const { Reranker } = require('../lib/reranker');
const { Shortlist } = require('../lib/shortlist');
const { readRequest } = require('../lib/request');
const { decisionRequest } = require('../lib/decision-texts');

/** The median of `rounds` timed answers after one warm-up. */
async function medianMs(reranker, body, rounds) {
  await reranker.answer(body);
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await reranker.answer(body);
    samples.push(performance.now() - started);
  }
  return Number(samples.sort((a, b) => a - b)[rounds >> 1].toFixed(1));
}

/** The word stage alone over the 90 options, their word counts cached as a server's are after one decision. */
function wordStageUs(topK, maxLength) {
  const { questions, state } = readRequest(decisionRequest(90));
  const shortlist = new Shortlist(topK, maxLength);
  shortlist.pick(questions[0], state);
  const rounds = 2000;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) shortlist.pick(questions[0], state);
  return Math.round(((performance.now() - started) / rounds) * 1000);
}

async function main() {
  const [dir, k = '20'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: node test-support/shortlist-cost.js DIR [K]');
  const topK = Number(k);
  const model = await CrossEncoder.load(dir, { device: 'cpu' });
  try {
    const result = {
      model: dir,
      k: topK,
      all_90_ms: await medianMs(new Reranker(model), decisionRequest(90), 3),
      shortlisted_90_ms: await medianMs(new Reranker(model, { shortlist: topK }), decisionRequest(90), 5),
      only_k_ms: await medianMs(new Reranker(model), decisionRequest(topK), 5),
      word_stage_us: wordStageUs(topK, model.maxLength),
    };
    console.log(JSON.stringify(result));
  } finally {
    await model.release();
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
