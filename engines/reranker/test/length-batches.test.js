'use strict';
// The plan that splits a request's pairs into model runs by length: what it runs together, and that every
// pair is run exactly once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { planRuns, planCost, runCost } = require('../lib/length-batches');

/** The lengths of each run of a plan, for reading a plan at a glance. */
const lengthsOf = (lengths, runs) => runs.map((run) => run.map((i) => lengths[i]));

/** Every index exactly once, each run in ascending length. */
function assertCovers(lengths, runs) {
  assert.deepEqual(
    runs.flat().sort((a, b) => a - b),
    lengths.map((_, i) => i),
  );
  for (const run of runs)
    assert.deepEqual(
      run,
      [...run].sort((a, b) => lengths[a] - lengths[b] || a - b),
    );
}

/** Every way to cut the sorted rows into consecutive runs (small n only), the cheapest one's cost. */
function cheapestByBruteForce(lengths) {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  let best = Infinity;
  for (let cuts = 0; cuts < 2 ** (order.length - 1); cuts++) {
    const runs = [[order[0]]];
    for (let k = 1; k < order.length; k++) {
      if (cuts & (2 ** (k - 1))) runs.push([order[k]]);
      else runs.at(-1).push(order[k]);
    }
    best = Math.min(best, planCost(lengths, runs));
  }
  return best;
}

test('19 short pairs and 1 long one: the long one runs alone, the short ones together', () => {
  const lengths = [...Array(10).fill(78), 302, ...Array(9).fill(79)];
  const runs = planRuns(lengths);
  assertCovers(lengths, runs);
  assert.deepEqual(lengthsOf(lengths, runs), [[...Array(10).fill(78), ...Array(9).fill(79)], [302]]);
  assert.deepEqual(runs[1], [10]);
  // Against 20 short pairs in one run: about 1.2 times, where one padded run would be about 4.2 times.
  const twentyShort = runCost(20, 79);
  assert.ok(planCost(lengths, runs) < 1.5 * twentyShort);
  assert.ok(runCost(20, 302) > 4 * twentyShort);
});

test('equal lengths, and lengths close together, make one run', () => {
  for (const lengths of [Array(20).fill(302), Array(90).fill(79), [40, 41, 43, 45, 44, 42], [7]]) {
    const runs = planRuns(lengths);
    assert.equal(runs.length, 1, JSON.stringify(lengths));
    assertCovers(lengths, runs);
  }
  assert.deepEqual(planRuns([]), []);
});

test('a pathological spread: lengths doubling from 10 to 8,000 tokens split where padding would cost more than a run', () => {
  const lengths = [8000, 10, 2560, 12, 640, 20, 160, 13, 40, 1280, 80, 11, 320, 5000, 15];
  const runs = planRuns(lengths);
  assertCovers(lengths, runs);
  assert.deepEqual(lengthsOf(lengths, runs), [
    [10, 11, 12, 13, 15, 20],
    [40, 80],
    [160],
    [320],
    [640],
    [1280],
    [2560],
    [5000],
    [8000],
  ]);
  // The plan is the cheapest cut of the sorted rows: checked against every cut of a spread small enough to try.
  const small = [5, 300, 9, 60, 61, 700, 8, 150, 2000, 62, 400, 7];
  assert.ok(Math.abs(planCost(small, planRuns(small)) - cheapestByBruteForce(small)) < 1e-9);
  assert.ok(planCost(small, planRuns(small)) < planCost(small, [small.map((_, i) => i)]));
});

test('rows of equal length keep their order, and every row is in exactly one run', () => {
  const lengths = [30, 500, 30, 31, 500, 30, 499, 31];
  const runs = planRuns(lengths);
  assertCovers(lengths, runs);
  assert.deepEqual(runs, [
    [0, 2, 5, 3, 7],
    [6, 1, 4],
  ]);
});
