/**
 * `npm run lint:types` on a fresh clone (no dist/ yet): the consumer fixture imports the package by its own
 * name, which tsconfig.json's `paths` points at the sources. Those paths must name exactly the entry points
 * package.json publishes, each at the source its dist/ file is built from.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface PackageJson {
  name: string;
  exports: Record<string, string | { types?: string }>;
}

/** Each published entry's import specifier, and the source file its `types` are compiled from. */
function publishedEntries(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const entries: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string' || !target.types) continue; // ./package.json
    const source = target.types.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts');
    entries[subpath === '.' ? pkg.name : `${pkg.name}${subpath.slice(1)}`] = [source];
  }
  return entries;
}

it('maps every entry point package.json publishes, and only those, to the source it is built from', () => {
  const { config, error } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  expect(error).toBeUndefined();
  const paths = (config as { compilerOptions: { paths?: Record<string, string[]> } }).compilerOptions.paths;
  const published = publishedEntries();
  expect(Object.keys(published)).toContain('system1-gateway/contracts');
  expect(paths).toEqual(published);
});
