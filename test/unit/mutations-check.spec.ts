/**
 * scripts/mutations.js (the suite audited by mutation) finds each mutation's snippet in src/ exactly once, so a
 * change to the product that moves a snippet fails here, at once, rather than when someone next runs the audit.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'mutations.js');

it("finds every mutation's snippet in its file, once", () => {
  const run = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^\d+ mutation snippets found, each once\n$/);
});
