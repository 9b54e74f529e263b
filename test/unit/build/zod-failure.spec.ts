/**
 * src/entrypoints/zod-failure.ts's source replacement on the zod installed here, and its refusal of a zod whose
 * function is another. What the replaced zod does is held by test/e2e/zod-failure.spec.ts (in child processes).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { withSharedFailureAccessors, ZOD_PARSE_FILE } from '../../../src/entrypoints/zod-failure';

const ZOD_PARSE = path.resolve(__dirname, '..', '..', '..', 'node_modules', 'zod', 'v4', 'core', 'parse.cjs');

it('replaces the installed zod’s failure() with the shared-accessor one, and nothing else', () => {
  const published = readFileSync(ZOD_PARSE, 'utf8');
  const replaced = withSharedFailureAccessors(published, ZOD_PARSE);
  expect(replaced).toContain('Object.defineProperty(result, "error", FAILURE_ERROR)');
  expect(replaced).not.toContain('get error()');
  const outside = (source: string) => source.slice(0, source.indexOf('function failure(Err, issues, ctx) {'));
  expect(outside(replaced).replace(/const FAILURE_STATE[\s\S]*$/, '')).toBe(outside(published));
});

it('matches zod’s parse module in both the forms it ships, and no other file', () => {
  expect(ZOD_PARSE_FILE.test(ZOD_PARSE)).toBe(true);
  expect(ZOD_PARSE_FILE.test('/app/node_modules/zod/v4/core/parse.js')).toBe(true);
  expect(ZOD_PARSE_FILE.test('/app/node_modules/zod/v4/classic/parse.cjs')).toBe(false);
  expect(ZOD_PARSE_FILE.test('/app/src/zod/v4/core/parse.cjs')).toBe(false);
});

it('refuses, naming the file, a zod whose failure() is not the one it replaces', () => {
  const changed = readFileSync(ZOD_PARSE, 'utf8').replace('issues = undefined;', 'issues = null;');
  expect(() => withSharedFailureAccessors(changed, ZOD_PARSE)).toThrow(
    `${ZOD_PARSE}: zod's failure() is not the one src/entrypoints/zod-failure.ts replaces`,
  );
  expect(() => withSharedFailureAccessors('exports.x = 1;', 'parse.js')).toThrow('parse.js: ');
});
