/**
 * scripts/zod-failure-plugin.js: the lean bundles' zod without a closure per failing `safeParse` result. Each
 * case bundles the installed zod with esbuild (with and without the plugin) into a scratch folder and runs
 * it in a child Node: the same contract as zod's own result, and nothing of the parsed input kept through
 * young-generation collections, where zod's own result keeps all of it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const { zodFailurePlugin, withSharedFailureAccessors } = require(path.join(ROOT, 'scripts', 'zod-failure-plugin.js'));
const ZOD_PARSE = path.join(ROOT, 'node_modules', 'zod', 'v4', 'core', 'parse.cjs');

let scratch: string;
beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'system1-zod-failure-'));
  const zod = (outfile: string, plugins: esbuild.Plugin[]) =>
    esbuild.build({
      stdin: { contents: 'module.exports = require("zod");', resolveDir: ROOT },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: path.join(scratch, outfile),
      plugins,
      logLevel: 'silent',
    });
  await Promise.all([zod('patched.js', [zodFailurePlugin]), zod('stock.js', [])]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `script` in a child Node (with --expose-gc) that has the chosen zod as `z`; returns what it printed. */
function inChild(zod: 'patched' | 'stock', script: string): unknown {
  const file = path.join(scratch, `${zod}-probe.js`);
  writeFileSync(file, `const z = require(${JSON.stringify(path.join(scratch, `${zod}.js`))});\n${script}`);
  const run = spawnSync(process.execPath, ['--expose-gc', file], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const CONTRACT = `
const result = z.object({ a: z.string() }).safeParse({ a: 1 });
let mapped = 0;
const lazy = z.string({ error: () => { mapped++; return 'mapped'; } }).safeParse(2);
const mappedBeforeRead = mapped;
const lazyMessage = lazy.error.issues[0].message;
const replaced = z.string().safeParse(3);
const replacement = new Error('replaced');
replaced.error = replacement;
const descriptor = Object.getOwnPropertyDescriptor(result, 'error');
console.log(JSON.stringify({
  success: result.success,
  keys: Object.keys(result),
  isZodError: result.error instanceof z.ZodError,
  sameErrorTwice: result.error === result.error,
  path: result.error.issues[0].path,
  code: result.error.issues[0].code,
  inputDropped: !('input' in result.error.issues[0]),
  accessor: { enumerable: descriptor.enumerable, configurable: descriptor.configurable, get: typeof descriptor.get, set: typeof descriptor.set },
  mappedBeforeRead, mappedAfterRead: mapped, lazyMessage,
  replacedIsKept: replaced.error === replacement,
  json: JSON.parse(JSON.stringify(lazy)).success,
  passes: z.string().safeParse('ok'),
}));`;

it("keeps zod's contract for a failing result: the same keys, a lazy error built once, replaceable", () => {
  const stock = inChild('stock', CONTRACT);
  expect(stock).toMatchObject({ success: false, keys: ['success', 'error'], isZodError: true, mappedBeforeRead: 0 });
  expect(inChild('patched', CONTRACT)).toEqual(stock);
});

/**
 * 2,000 failing results whose issue holds an 8 KB input, none kept; then two young-generation collections,
 * which copy what survives the first and promote it on the second. What is still used after them is what the
 * results kept alive: with zod's closures all of it (~16 MB, until a full collection), with the plugin none.
 */
const KEPT_THROUGH_YOUNG_COLLECTIONS = `
const v8 = require('node:v8');
const used = () => v8.getHeapSpaceStatistics().filter((s) => s.space_name === 'new_space' || s.space_name === 'old_space').reduce((sum, s) => sum + s.space_used_size, 0);
const schema = z.string();
gc(); gc();
const before = used();
for (let i = 0; i < 2000; i++) if (schema.safeParse({ big: new Array(1000).fill(i) }).success) throw new Error('passed');
gc({ type: 'minor' }); gc({ type: 'minor' });
console.log(JSON.stringify((used() - before) / 2 ** 20));`;

it('keeps nothing of the parsed input through young-generation collections, where zod keeps all of it', () => {
  expect(inChild('stock', KEPT_THROUGH_YOUNG_COLLECTIONS)).toBeGreaterThan(8);
  expect(inChild('patched', KEPT_THROUGH_YOUNG_COLLECTIONS)).toBeLessThan(2);
});

it("fails the build, naming the file, when zod's failure() is not the one it replaces", () => {
  const published = readFileSync(ZOD_PARSE, 'utf8');
  expect(withSharedFailureAccessors(published, ZOD_PARSE)).toContain('FAILURE_ERROR');
  const changed = published.replace('issues = undefined;', 'issues = null;');
  expect(() => withSharedFailureAccessors(changed, ZOD_PARSE)).toThrow(
    `${ZOD_PARSE}: zod's failure() is not the one scripts/zod-failure-plugin.js replaces`,
  );
  expect(() => withSharedFailureAccessors('exports.x = 1;', 'parse.js')).toThrow('parse.js: ');
});
