/**
 * The README's first command, `npm ci && npm run build`, builds once: npm ci's prepare step builds a fresh
 * clone and stamps dist/ (scripts/build-stamp.js), and the build that follows finds it current. Run in a copy
 * of the tracked files with this checkout's node_modules linked in, since npm ci itself would reinstall 600 MB.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { requireBuild, ROOT, runCommand } from './helpers/gateway';

const { isBuildCurrent } = require('../../scripts/build-stamp') as { isBuildCurrent(root: string): boolean };

jest.setTimeout(300_000);
const BUILT = 'bundled the lean paths';
const CURRENT = 'dist/ is already built from these sources';
const npm = (args: string[], cwd: string) =>
  runCommand('npm', [...args, '--no-update-notifier'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    cwd,
    timeoutMs: 280_000,
  });

let clone: string;
afterAll(() => clone && rmSync(path.dirname(clone), { recursive: true, force: true }));

beforeAll(() => {
  requireBuild();
  clone = path.join(mkdtempSync(path.join(tmpdir(), 'system1-build-once-')), 'clone');
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of tracked) {
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    try {
      cpSync(path.join(ROOT, file), path.join(clone, file));
    } catch {
      // a file deleted in the work tree but still in the index
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
});

it("npm ci's prepare step builds a fresh clone, and the README's npm run build after it does not build again", async () => {
  const prepared = await npm(['run', 'prepare'], clone);
  expect(prepared.code).toBe(0);
  expect(prepared.stdout + prepared.stderr).toContain(BUILT);
  const main = statSync(path.join(clone, 'dist', 'main.js')).mtimeMs;

  const built = await npm(['run', 'build'], clone);
  expect(built.code).toBe(0);
  expect(built.stdout + built.stderr).toContain(CURRENT);
  expect(built.stdout + built.stderr).not.toContain(BUILT);
  expect(statSync(path.join(clone, 'dist', 'main.js')).mtimeMs).toBe(main);

  // an edit to a source makes the next build a real one (checked without running it)
  writeFileSync(path.join(clone, 'src', 'main.ts'), '\n', { flag: 'a' });
  expect(isBuildCurrent(clone)).toBe(false);
});

it('this checkout, built by npm test before jest, is current, so npm run build leaves its dist/ alone', async () => {
  // Checked first: a stale dist/ here would be rebuilt under the suites running beside this one.
  expect(isBuildCurrent(ROOT)).toBe(true);
  const built = await runCommand(process.execPath, [path.join(ROOT, 'scripts', 'build.js')], {
    env: { PATH: process.env.PATH ?? '' },
    cwd: ROOT,
  });
  expect(built).toMatchObject({ code: 0, stdout: '' });
  expect(built.stderr).toContain(CURRENT);
});
