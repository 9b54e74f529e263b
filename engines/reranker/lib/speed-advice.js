'use strict';
/**
 * What to do when a decision is far from System-1 speed, each way with what it costs. The figures the advice
 * quotes live in FIGURES, in this one place, each with its source, so they are updated in one edit when the
 * final real-size bench lands in RESULTS.md.
 */

/** A 20-candidate decision predicted slower than this is far from System-1 speed: the advice is given. */
const SYSTEM1_SPEED_MS = 500;

/**
 * The CPU figures are RESULTS.md's real-size table (a graph with each model's exact shapes and random weights,
 * served by serve.js on a 2-core AMD EPYC with avx512_vnni, p50 of `node bench.js --shape NAME --dtype both`);
 * re-run that and `node test-support/shape-table.js` to update them. The GPU and hosted figures are the spec's
 * naga study (gateway-docs, "Which model for naga decisions"), measured with real weights on a laptop.
 */
const FIGURES = Object.freeze({
  gteInt8At20: {
    text: '647 ms at 20 candidates in int8, against 1,855 ms in float32, for gte-reranker-modernbert-base on a 2-core CPU',
    source: 'engines/reranker/RESULTS.md, a shape-true graph',
  },
  miniLmAt20: {
    text: '22.7M parameters: 185 ms at 20 candidates in float32 (75 ms in int8) on the same 2-core CPU',
    source: 'engines/reranker/RESULTS.md, a shape-true graph',
  },
  gteLaptopGpu: {
    text: 'gte-reranker-modernbert-base took 75-91 ms over 24-31 options and 1.1 s over 90 tools on a 4 GB laptop GPU',
    source: "the spec's naga study",
  },
  haiku: {
    text: 'Claude Haiku took about 1 s a decision over 90 tools, under USD 0.0013 a decision',
    source: "the spec's naga study",
  },
});

/** The int8 export's file name, as the Hub hosts it (what `engine pull --quantized` fetches). */
const isInt8File = (onnxFile) =>
  /quantized|int8|qint8|uint8/i.test(
    String(onnxFile ?? '')
      .split(/[\\/]/)
      .pop(),
  );

/**
 * The advice for a model predicted at `predicted20Ms` for 20 candidates: [] when it is within System-1
 * speed, else the ways to go faster (the int8 export only when the model is not int8 already, a GPU only when
 * it runs on the CPU), each `{what, how, cost}`.
 */
function speedAdvice(predicted20Ms, { onnxFile, device } = {}) {
  if (!(predicted20Ms > SYSTEM1_SPEED_MS)) return [];
  const cite = (figure) => `${figure.text} (${figure.source})`;
  const advice = [];
  if (!isInt8File(onnxFile))
    advice.push({
      what: 'the int8 export',
      how: 'system1 engine pull reranker --quantized, then system1 engine start reranker',
      cost: `${cite(FIGURES.gteInt8At20)}; its accuracy is not measured here: calibrate before trusting a threshold`,
    });
  advice.push({
    what: 'a smaller cross-encoder',
    how: 'system1 engine pull reranker cross-encoder/ms-marco-MiniLM-L-6-v2 (for small machines)',
    cost: `${cite(FIGURES.miniLmAt20)}; a general search reranker, not measured on tool choice`,
  });
  if (device !== 'cuda')
    advice.push({
      what: 'a GPU',
      how: "ONNX Runtime's CUDA library (ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci --omit=dev in the engine's folder), then system1 engine start reranker --device cuda",
      cost: cite(FIGURES.gteLaptopGpu),
    });
  advice.push({
    what: 'a hosted engine',
    how: 'a hosted provider in [gateway] provider, e.g. "anthropic" with ANTHROPIC_API_KEY',
    cost: `${cite(FIGURES.haiku)}; needs a key and the network`,
  });
  return advice;
}

module.exports = { SYSTEM1_SPEED_MS, FIGURES, speedAdvice, isInt8File };
