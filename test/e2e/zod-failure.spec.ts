/**
 * zod without a closure per failing `safeParse` result, as the gateway's processes get it (see
 * src/entrypoints/zod-failure.ts): the lean bundles through scripts/zod-failure-plugin.js, the commands that
 * run from dist/ through the load-time hook. Each runs in a child Node beside zod as published: the same
 * contract as zod's own result, and nothing of the parsed input kept through young-generation collections,
 * where zod's own result keeps all of it. Needs the build (the plugin and the hook come from dist/).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..');
const { zodFailurePlugin } = require(path.join(ROOT, 'scripts', 'zod-failure-plugin.js'));
const HOOK = path.join(ROOT, 'dist', 'entrypoints', 'zod-failure.js');

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
  await Promise.all([zod('bundled.js', [zodFailurePlugin]), zod('stock.js', [])]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Zod = 'stock' | 'bundled' | 'hooked';

/** The first lines of a child's script: `z` is zod as published, as bundled, or as loaded under the hook. */
function zodOf(zod: Zod): string {
  if (zod === 'hooked') {
    const installed = JSON.stringify(require.resolve('zod', { paths: [ROOT] }));
    return `require(${JSON.stringify(HOOK)}).installZodFailureHook();\nconst z = require(${installed});\n`;
  }
  return `const z = require(${JSON.stringify(path.join(scratch, `${zod}.js`))});\n`;
}

/** Runs `script` in a child Node (with --expose-gc) that has the chosen zod as `z`; returns what it printed. */
function inChild(zod: Zod, script: string): unknown {
  const file = path.join(scratch, `${zod}-probe.js`);
  writeFileSync(file, zodOf(zod) + script);
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
  expect(inChild('bundled', CONTRACT)).toEqual(stock);
  expect(inChild('hooked', CONTRACT)).toEqual(stock);
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
  expect(inChild('bundled', KEPT_THROUGH_YOUNG_COLLECTIONS)).toBeLessThan(2);
  expect(inChild('hooked', KEPT_THROUGH_YOUNG_COLLECTIONS)).toBeLessThan(2);
});

it('is in the built lean bundles', () => {
  for (const bundle of ['serve-mcp.js', 'claude-hooks.js']) {
    const source = readFileSync(path.join(ROOT, 'dist', 'bundle', bundle), 'utf8');
    if (source.includes('function failure(Err,issues,ctx)')) expect(source).toContain('FAILURE_ERROR');
  }
  expect(readFileSync(path.join(ROOT, 'dist', 'bundle', 'serve-mcp.js'), 'utf8')).toContain('FAILURE_ERROR');
});

it('loads a zod whose failure() is another as it is, under the hook: the process works as before', () => {
  const parse = path.join(scratch, 'other', 'node_modules', 'zod', 'v4', 'core', 'parse.cjs');
  mkdirSync(path.dirname(parse), { recursive: true });
  writeFileSync(
    parse,
    'function failure(Err, issues, ctx) { return { success: false, issues }; }\nexports.failure = failure;\n',
  );
  const script = `require(${JSON.stringify(HOOK)}).installZodFailureHook();
const { failure } = require(${JSON.stringify(parse)});
console.log(JSON.stringify(failure(Error, ['x'], {})));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ success: false, issues: ['x'] });
});
