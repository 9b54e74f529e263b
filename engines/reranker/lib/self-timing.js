'use strict';
/**
 * The engine times itself on the model it serves, on this machine, in a few seconds, so the user hears what a
 * decision costs before finding out from timeouts. It asks its own Reranker (so whatever changes how pairs are
 * run is included) decisions shaped like a real one (lib/decision-texts.js: one choice question, a request and
 * tool descriptions of about 25 words each): one warm-up, then rounds of 1 and 8 candidates while the budget
 * lasts. A fixed cost and a cost per candidate fitted to the two medians predict 5, 20 and 90 candidates:
 * predictions from a measured per-candidate cost, not measurements (a real model's cost per candidate grows a
 * little with the batch: at gte-reranker's real size in float32 the line gave 90 candidates 9.1 s where
 * RESULTS.md measured 9.8 s).
 */
const { decisionRequest } = require('./decision-texts');
const { speedAdvice, SYSTEM1_SPEED_MS } = require('./speed-advice');

/** A few seconds at most: on a slow machine it stops early, with fewer runs, and says so. */
const TIMING_BUDGET_MS = 3000;
/** Enough runs for a median that one stray slow run does not move; the tiny test model gets there at once. */
const MAX_RUNS = 5;
const SMALL = 1;
const LARGE = 8;
const PREDICTED = [5, 20, 90];
/**
 * A per-candidate cost below this share of a 1-candidate decision cannot be told from noise in a few runs (a
 * model whose run costs next to nothing): then the 8-candidate decision's time per candidate is used, an
 * upper bound, so the predictions still grow with the candidates.
 */
const NOISE_SHARE = 0.05;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** Three significant digits: enough for a prediction, and the same text at any scale (0.0123 ms or 1,730 ms). */
const rounded = (ms) => Number(ms.toPrecision(3));

/** Fixed and per-candidate cost from the medians of the small and the large decisions. */
function fit(small, large) {
  const perCandidate = (large - small) / (LARGE - SMALL);
  if (perCandidate > NOISE_SHARE * small)
    return { fixed: Math.max(0, small - SMALL * perCandidate), perCandidate, fitted: true };
  return { fixed: 0, perCandidate: Math.max(large, 1e-6) / LARGE, fitted: false };
}

/**
 * Times `reranker` (a Reranker over the loaded model) and returns the timing /health reports. `budgetMs` and
 * `maxRuns` bound it; the warm-up counts against the budget, and at least one run of each size is made.
 */
async function timeDecisions(reranker, { budgetMs = TIMING_BUDGET_MS, maxRuns = MAX_RUNS } = {}) {
  const started = performance.now();
  const requests = [decisionRequest(SMALL), decisionRequest(LARGE)];
  // The first run of a session allocates its buffers, and the candidates' tokens enter the cache, as an
  // agent's tool list does after its first decision: neither is what a decision costs afterwards.
  await reranker.answer(requests[1]);
  const samples = [[], []];
  let runs = 0;
  do {
    for (const [i, request] of requests.entries()) {
      const before = performance.now();
      await reranker.answer(request);
      samples[i].push(performance.now() - before);
    }
    runs++;
  } while (runs < maxRuns && performance.now() - started < budgetMs);
  const [small, large] = samples.map(median);
  const { fixed, perCandidate, fitted } = fit(small, large);
  const predicted = Object.fromEntries(PREDICTED.map((n) => [n, rounded(fixed + n * perCandidate)]));
  const model = reranker.model;
  return {
    per_candidate_ms: rounded(perCandidate),
    fixed_ms: rounded(fixed),
    predicted_ms: predicted,
    measured_ms: { [SMALL]: rounded(small), [LARGE]: rounded(large) },
    runs,
    stopped_early: runs < maxRuns,
    budget_ms: budgetMs,
    how:
      `predictions from a measured cost per candidate: ${
        fitted
          ? `${rounded(fixed)} ms a decision and ${rounded(perCandidate)} ms a candidate, fitted to`
          : `${rounded(perCandidate)} ms a candidate (too small to tell from noise, so the ${LARGE}-candidate decision's time per candidate, an upper bound), from`
      } the median of ${runs} decision${runs === 1 ? '' : 's'} each of ${SMALL} and ${LARGE} candidates` +
      (runs < maxRuns ? ` (stopped at the ${budgetMs / 1000} s budget, so rougher than ${maxRuns} runs)` : ''),
    system1_speed_ms: SYSTEM1_SPEED_MS,
    slow: predicted[20] > SYSTEM1_SPEED_MS,
    advice: speedAdvice(predicted[20], { onnxFile: model.onnxFile, device: model.device }),
    measured_at: new Date().toISOString(),
  };
}

const ms = (value) => `${value.toLocaleString('en-US')} ms`;

/** What a decision of 5, 20 and 90 candidates takes, and how that was found. */
function timingSummary(timing) {
  const [five, twenty, ninety] = PREDICTED.map((n) => ms(timing.predicted_ms[n]));
  return `a decision of 5 candidates takes ~${five}, 20 ~${twenty}, 90 ~${ninety} on this machine (${timing.how})`;
}

const slowNote = (timing) => `over ${timing.system1_speed_ms} ms for 20 candidates, far from System-1 speed`;

/** The timing in one line, for serve.js's log. */
function timingLine(timing) {
  return `${timingSummary(timing)}${timing.slow ? `; ${slowNote(timing)}: GET /health's timing.advice says what to do` : ''}`;
}

/** The timing and, when slow, what to do, in lines, for time.js. */
function timingLines(timing) {
  if (!timing.slow) return [`${timingSummary(timing)}.`];
  return [
    `${timingSummary(timing)}.`,
    `That is ${slowNote(timing)}. Faster ways, with what each costs:`,
    ...timing.advice.map((way) => `  ${way.what}: ${way.how}. ${way.cost}.`),
  ];
}

module.exports = { timeDecisions, timingLine, timingLines, TIMING_BUDGET_MS };
