// An esbuild plugin for the lean bundles (scripts/bundle-lean.js): zod's failing `safeParse` result without a
// closure of its own, the replacement src/entrypoints/zod-failure.ts makes (it says why). It runs after tsc,
// so it takes the replacement from dist/. Unlike the load-time hook, it stops the build when zod's function
// is not the known one: a bundle is what users run, and the build is where a zod update is seen first.
'use strict';
const { readFile } = require('node:fs/promises');
const path = require('node:path');

const { ZOD_PARSE_FILE, withSharedFailureAccessors } = require(
  path.join(__dirname, '..', 'dist', 'entrypoints', 'zod-failure.js'),
);

const zodFailurePlugin = {
  name: 'zod-failure-without-closures',
  setup(build) {
    build.onLoad({ filter: ZOD_PARSE_FILE }, async (args) => ({
      contents: withSharedFailureAccessors(await readFile(args.path, 'utf8'), args.path),
      loader: 'js',
    }));
  },
};

module.exports = { zodFailurePlugin };
