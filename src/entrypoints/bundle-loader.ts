import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Script } from 'node:vm';

/** The commands that clients start often and wait on; each is one bundle with its own code cache. */
export type LeanEntry = 'serve-mcp' | 'claude-hooks';

/** How the code was loaded, logged at DEBUG by each lean path (a rejected cache silently costs start-up time). */
export type CodeCacheUse = 'accepted' | 'rejected' | 'missing' | 'unbundled';

export interface Loaded<T> {
  exports: T;
  codeCache: CodeCacheUse;
}

/**
 * Where `npm run build` puts the bundles (scripts/bundle-lean.js). Two levels below the package root like
 * every compiled file, so the bundled PACKAGE_ROOT still finds the shipped files.
 */
const BUNDLE_DIR = path.resolve(__dirname, '..', 'bundle');

/** Set by the build only: write the V8 code cache of the bundle this process ran when it exits. */
export const WRITE_CODE_CACHE = 'SYSTEM1_WRITE_CODE_CACHE';

/** Each build stamps its bundles with a fresh id on their first line; each cache file starts with the id. */
const BUILD_ID = /^\/\* system1 build (\S+) \*\//;

/**
 * Loads a lean path from its esbuild bundle with the V8 code cache the build wrote beside it: one file to
 * read instead of ~1,000 modules to resolve, and functions that are deserialised instead of compiled. V8
 * rejects a cache made by another Node version by itself, but it checks only the source's length, so a
 * cache is offered only to the bundle of its own build. Without a bundle (a bare `tsc` build) the same code
 * is required module by module.
 */
export function loadLean<T>(entry: LeanEntry, { afterCompile }: { afterCompile?: () => void } = {}): Loaded<T> {
  const file = path.join(BUNDLE_DIR, `${entry}.js`);
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    afterCompile?.();
    return { exports: require(`./${entry}`) as T, codeCache: 'unbundled' };
  }
  const cacheFile = `${file}.cache`;
  const buildId = BUILD_ID.exec(source)?.[1] ?? 'none';
  // The build wrapped the bundle as a CommonJS function already: one copy of a megabyte-sized string, not two.
  const cachedData = cacheOf(cacheFile, buildId);
  const script = new Script(source, { filename: file, cachedData });
  if (process.env[WRITE_CODE_CACHE] === '1') {
    process.once('exit', () =>
      writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${buildId}\n`), script.createCachedData()])),
    );
  }
  afterCompile?.();
  const bundle = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    bundle.exports,
    createRequire(file),
    bundle,
    file,
    BUNDLE_DIR,
  );
  return {
    exports: bundle.exports,
    codeCache: !cachedData ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted',
  };
}

/** The cache written for this build of the bundle, without its id line; none when missing or stale. */
function cacheOf(cacheFile: string, buildId: string): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const stamp = Buffer.from(`${buildId}\n`);
  return cache.subarray(0, stamp.length).equals(stamp) ? cache.subarray(stamp.length) : undefined;
}
