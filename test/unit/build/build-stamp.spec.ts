/**
 * scripts/build-stamp.js: a build is current exactly when dist/ was finished from the same inputs' contents.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const { sourcesDigest, isBuildCurrent, writeBuildStamp } = require('../../../scripts/build-stamp') as {
  sourcesDigest(root: string): string;
  isBuildCurrent(root: string): boolean;
  writeBuildStamp(root: string, digest: string): void;
};

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A tree with sources, a config and a finished build of them. */
function builtTree(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'system1-stamp-'));
  roots.push(root);
  mkdirSync(path.join(root, 'src', 'config'), { recursive: true });
  mkdirSync(path.join(root, 'dist'));
  writeFileSync(path.join(root, 'src', 'main.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src', 'config', 'locations.js'), 'module.exports = {};\n');
  writeFileSync(path.join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(path.join(root, 'dist', 'main.js'), '');
  writeBuildStamp(root, sourcesDigest(root));
  return root;
}

it('a finished build is current; an edit to a source, a nested one, or a build input makes it stale', () => {
  for (const edit of ['src/main.ts', 'src/config/locations.js', 'tsconfig.json']) {
    const root = builtTree();
    expect(isBuildCurrent(root)).toBe(true);
    writeFileSync(path.join(root, edit), '// changed\n', { flag: 'a' });
    expect(isBuildCurrent(root)).toBe(false);
  }
});

it('a new source file makes it stale; a copy of the tree, or new mtimes alone, do not', () => {
  const root = builtTree();
  const copy = path.join(mkdtempSync(path.join(tmpdir(), 'system1-stamp-copy-')), 'tree');
  roots.push(path.dirname(copy));
  cpSync(root, copy, { recursive: true });
  utimesSync(path.join(copy, 'src', 'main.ts'), new Date(), new Date(Date.now() + 60_000));
  expect(isBuildCurrent(copy)).toBe(true);
  writeFileSync(path.join(copy, 'src', 'extra.ts'), '');
  expect(isBuildCurrent(copy)).toBe(false);
});

it('is not current without a stamp, without dist/main.js, or with a stamp of other sources', () => {
  const noStamp = builtTree();
  rmSync(path.join(noStamp, 'dist', '.build-stamp'));
  expect(isBuildCurrent(noStamp)).toBe(false);
  const noMain = builtTree();
  rmSync(path.join(noMain, 'dist', 'main.js'));
  expect(isBuildCurrent(noMain)).toBe(false);
  const other = builtTree();
  writeBuildStamp(other, 'f'.repeat(64));
  expect(isBuildCurrent(other)).toBe(false);
});
