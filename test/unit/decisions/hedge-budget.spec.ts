/**
 * The hedge budget on its own, counted exactly: `hedge_budget` is the share of a pool's requests that may be
 * hedged, and a quiet spell saves at most `hedge_budget * 100` hedges, so a long run of fast answers cannot pay
 * for a burst of second copies when the pool turns slow (hedging.spec holds the same through real replicas).
 */
import { loadConfig } from '../../../src/config/config.loader';
import { EndpointLoad } from '../../../src/decisions/pools/endpoint-load.service';
import { Hedging } from '../../../src/decisions/pools/hedging.service';

function hedgingWith(gateway: string): Hedging {
  const config = loadConfig({
    env: { HOME: '/test/home', SYSTEM1_CONFIG: '/test/config.toml' },
    readFile: () => `[gateway]\n${gateway}\n`,
  });
  expect(config.errors).toEqual([]);
  return new Hedging(config, new EndpointLoad());
}

/** How many hedges in a row the budget grants before it refuses one. */
function hedgesInARow(hedging: Hedging, provider: string): number {
  let granted = 0;
  while (hedging.spend(provider)) granted++;
  return granted;
}

describe('the hedge budget', () => {
  it.each([
    [0.1, 10],
    [0.05, 5],
    [0.5, 50],
  ])('at hedge_budget = %s, 10,000 requests without a hedge save %s hedges, and no more', (share, saved) => {
    const hedging = hedgingWith(`hedge_after_ms = 50\nhedge_budget = ${share}`);
    for (let i = 0; i < 10_000; i++) expect(hedging.delayFor('laya')).toBe(50);
    expect(hedgesInARow(hedging, 'laya')).toBe(saved);
  });

  it('once the savings are spent, hedges come back only as requests earn them, each pool its own', () => {
    const hedging = hedgingWith('hedge_after_ms = 50\nhedge_budget = 0.1');
    for (let i = 0; i < 1_000; i++) hedging.delayFor('laya');
    hedgesInARow(hedging, 'laya');
    let granted = 0;
    for (let i = 0; i < 100; i++) {
      hedging.delayFor('laya');
      if (hedging.spend('laya')) granted++;
    }
    // One per ten requests, give or take the last: ten additions of 0.1 sum to just under 1 in floating point.
    expect(granted).toBeLessThanOrEqual(10);
    expect(granted).toBeGreaterThanOrEqual(9);
    expect(hedgesInARow(hedging, 'ollama')).toBe(0);
  });

  it('counts no request while hedging is off', () => {
    const hedging = hedgingWith('hedge_after_ms = 0\nhedge_budget = 0.1');
    for (let i = 0; i < 1_000; i++) expect(hedging.delayFor('laya')).toBeUndefined();
    expect(hedgesInARow(hedging, 'laya')).toBe(0);
  });
});
