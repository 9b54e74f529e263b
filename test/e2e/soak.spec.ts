/** The soak of bench/soak.js, short: every request id answered exactly once under faults and load, memory settled. */
import * as path from 'node:path';
import { requireBuild, ROOT } from './helpers/gateway';

const { soak } = require(path.join(ROOT, 'bench', 'soak.js')) as {
  soak: (options: object) => Promise<Record<string, any>>;
};

/**
 * RSS growth over the 600 decisions after a 600-decision warm-up. RSS climbs about 27 MB over the first 600
 * (heap, pools, compiled code) and then moves about 6 MB over the next 600 on an idle machine, so the bound
 * is generous on purpose: it catches a leak that grows with the decisions (50 KB each would add 30 MB), not
 * the garbage collector's timing. bench/soak.js holds the long run to its own mark.
 */
const RSS_GROWTH_BOUND_MB = 30;

beforeAll(requireBuild);

it('answers 1,200 decisions at 100 in flight with 5% engine faults: none lost, none duplicated, none mixed up, memory settled', async () => {
  // Two rounds of 600: the first warms up and is the baseline, the second is measured against it.
  const result = await soak({ total: 1200, inFlight: 100, faultShare: 0.05, rounds: 2, quiet: true });
  expect(result).toMatchObject({
    lost: 0,
    duplicated: 0,
    mismatched_request_ids: 0,
    stray_stdout_lines: 0,
    error_replies: 0,
  });
  expect(result.open_fds.end).toBeLessThanOrEqual(result.open_fds.after_warm_up + 10);
  // Measured for real (a failed read would be NaN or 0 and make the bound below mean nothing).
  expect(result.rss_mb.after_warm_up).toBeGreaterThan(10);
  expect(result.rss_mb.growth).toBeLessThanOrEqual(RSS_GROWTH_BOUND_MB);
  console.log(
    `soak: RSS ${result.rss_mb.after_warm_up.toFixed(1)} MB after warm-up, ${result.rss_mb.end.toFixed(1)} MB at the end (bound: +${RSS_GROWTH_BOUND_MB} MB)`,
  );
}, 120_000);
