// npm's `prepare` step: a clone installed as a git dependency (`npm install git+https://...` or
// `git+file://...`) has no dist/, so it is built there, with the devDependencies npm installs for that.
// A clone that is already built, or an install that skips scripts (the installer's), is left alone.
'use strict';
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
if (!existsSync(path.join(root, 'dist', 'main.js')) && existsSync(path.join(root, 'node_modules', 'typescript'))) {
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const result = spawnSync(npm[0], [...npm[1], 'run', 'build'], { cwd: root, stdio: 'inherit', shell: !process.env.npm_execpath && process.platform === 'win32' });
  process.exitCode = result.status ?? 1;
}
