'use strict';
/**
 * Splits a request's pairs into model runs by length, so a decision costs what its pairs cost: a run pads
 * every row to its longest, so one long candidate in a run of short ones makes each short row as dear as the
 * long one (19 short + 1 long cost 4.7 times 20 short on the real-size gte shape, issue 43).
 *
 * The cost of one run of `rows` rows padded to `length` tokens, in units of one token through the model:
 *
 *   RUN_OVERHEAD + rows · (length + length² / ATTENTION_LENGTH)
 *
 * - Each row costs about its padded length: the matrix multiplies (79% of a real-size run) do the same work
 *   for every position, padding included.
 * - Attention adds a share that grows with the square of the length: per row 4·layers·hidden·L² operations
 *   against 2·(non-embedding parameters)·L for the rest, which are equal at about L = 3,300 for
 *   gte-reranker-modernbert-base (22 × 768, 111M; its local-attention layers make its share smaller still),
 *   2,300 for MiniLM-L6 (6 × 384, 11M) and 4,700 for BERT-base; ATTENTION_LENGTH takes the low end.
 * - A run has a fixed cost besides (session call, tensors, kernels started): the issue's own timings put it
 *   at 18 tokens' worth for gte in float32, 78 for MiniLM-L6 and 97 for gte in int8 (the intercept of 2 and 5
 *   candidates); RUN_OVERHEAD is in that range, so an extra run is chosen only when it saves more than that.
 *
 * The plan sorts the pairs by length and cuts the sorted list into consecutive runs by dynamic programming.
 * Some cheapest plan is always one of consecutive runs: when a run with the longer maximum holds a shorter row
 * than another run does, swapping the two rows raises neither run's maximum. Equal lengths always make one
 * run, since a second run only adds its overhead. n is at most the request's 256 options: n² steps are
 * nothing beside a model run.
 */
const RUN_OVERHEAD = 64;
const ATTENTION_LENGTH = 2048;

/** The cost of one run of `rows` rows padded to `length` tokens (the units above). */
function runCost(rows, length) {
  return RUN_OVERHEAD + rows * (length + (length * length) / ATTENTION_LENGTH);
}

/**
 * The runs to make for rows of these lengths (special tokens included): each run a list of the rows'
 * indices into `lengths`, shortest first; every index in exactly one run. Ties keep the rows' order.
 */
function planRuns(lengths) {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const n = order.length;
  // best[j]: the cheapest cost of the first j sorted rows; start[j]: where its last run begins.
  const best = [0];
  const start = [0];
  for (let j = 1; j <= n; j++) {
    const longest = lengths[order[j - 1]];
    best[j] = Infinity;
    for (let i = 0; i < j; i++) {
      const cost = best[i] + runCost(j - i, longest);
      if (cost < best[j]) {
        best[j] = cost;
        start[j] = i;
      }
    }
  }
  const runs = [];
  for (let j = n; j > 0; j = start[j]) runs.unshift(order.slice(start[j], j));
  return runs;
}

/** What a plan costs in all (the units above), to compare plans. */
function planCost(lengths, runs) {
  return runs.reduce((sum, run) => sum + runCost(run.length, Math.max(...run.map((i) => lengths[i]))), 0);
}

module.exports = { planRuns, planCost, runCost, RUN_OVERHEAD, ATTENTION_LENGTH };
