'use strict';
// npm run build: tsc, the JSON Schemas from the DTOs, the lean bundles with their code caches. Skipped when
// dist/ is a finished build of the current sources (scripts/build-stamp.js), so that `npm ci`, whose prepare
// step builds, and then `npm run build` build once. `--force` builds anyway.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { sourcesDigest, isBuildCurrent, writeBuildStamp, STAMP } = require('./build-stamp');

const root = path.resolve(__dirname, '..');
const force = process.argv.includes('--force');

function step(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status === null ? 1 : result.status);
}

if (!force && isBuildCurrent(root)) {
  console.error(`dist/ is already built from these sources (${STAMP}); npm run build -- --force rebuilds it`);
} else {
  const digest = sourcesDigest(root);
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  step(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json']);
  step(path.join(root, 'dist', 'main.js'), ['schema']);
  step(path.join(root, 'scripts', 'bundle-lean.js'), []);
  writeBuildStamp(root, digest);
}
