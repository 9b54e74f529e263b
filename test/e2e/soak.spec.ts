/** The soak of bench/soak.js, short: every request id answered exactly once under faults and load. */
import * as path from 'node:path';
import { requireBuild, ROOT } from './helpers/gateway';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { soak } = require(path.join(ROOT, 'bench', 'soak.js')) as { soak: (options: object) => Promise<Record<string, any>> };

beforeAll(requireBuild);

it('answers 600 decisions at 100 in flight with 5% engine faults: none lost, none duplicated, none mixed up', async () => {
  const result = await soak({ total: 600, inFlight: 100, faultShare: 0.05, quiet: true });
  expect(result).toMatchObject({ lost: 0, duplicated: 0, mismatched_request_ids: 0, stray_stdout_lines: 0, error_replies: 0 });
  expect(result.open_fds.end).toBeLessThanOrEqual(result.open_fds.after_warm_up + 10);
}, 60_000);
