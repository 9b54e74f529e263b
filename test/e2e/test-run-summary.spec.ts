/**
 * `npm test` ends with the tests it did not run and why (test/helpers/skipped-reporter.js): a real jest run,
 * with the repository's reporters, over the small suites in test/fixtures/skipped-run.
 */
import * as path from 'node:path';
import { runCommand, ROOT } from './helpers/gateway';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'skipped-run');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

/** A jest run over the fixture files matching `pattern`, as its output lines (no colours, trailing blanks trimmed). */
async function jestRun(pattern: string, extra: string[] = []): Promise<{ code: number | null; lines: string[] }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FORCE_COLOR: '0' };
  const run = await runCommand(
    process.execPath,
    [JEST, '-c', path.join(FIXTURE, 'jest.config.js'), '--runInBand', ...extra, pattern],
    { env, cwd: ROOT },
  );
  return { code: run.code, lines: `${run.stdout}${run.stderr}`.trimEnd().split('\n') };
}

/** The lines from the SKIPPED block's heading to the end, and where jest's summary is. */
function tail(lines: string[]): { block: string[]; afterSummary: boolean } {
  const heading = lines.findIndex((line) => line.startsWith('SKIPPED: '));
  const summary = lines.findIndex((line) => line.startsWith('Tests:'));
  return { block: heading === -1 ? [] : lines.slice(heading), afterSummary: summary !== -1 && heading > summary };
}

it('names every skipped test by file and reason in the last lines, after the summary', async () => {
  const { code, lines } = await jestRun('skips');
  expect(code).toBe(0);
  expect(tail(lines)).toEqual({
    block: [
      'SKIPPED: 3 test(s) did not run:',
      '  2 in test/fixtures/skipped-run/skips.check.js: the load-balanced suite [SKIPPED: haproxy is not installed]',
      '  1 in test/fixtures/skipped-run/skips.check.js: a plain skip',
    ],
    afterSummary: true,
  });
});

it('stays last when jest warns that the process did not exit after the run', async () => {
  const { lines } = await jestRun('lingers');
  const warning = lines.findIndex((line) =>
    line.includes('Jest did not exit one second after the test run has completed'),
  );
  expect(warning).toBeGreaterThan(-1);
  const { block } = tail(lines);
  expect(block).toEqual([
    'SKIPPED: 1 test(s) did not run:',
    '  1 in test/fixtures/skipped-run/lingers.check.js: skipped beside it [SKIPPED: a reason]',
  ]);
  expect(lines.indexOf(block[0])).toBeGreaterThan(warning);
});

it('prints nothing of its own when every test ran, or when -t chose the tests', async () => {
  expect(tail((await jestRun('passes')).lines).block).toEqual([]);
  expect(tail((await jestRun('skips', ['-t', 'passes'])).lines).block).toEqual([]);
});
