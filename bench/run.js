// npm run bench [-- name ...]: runs the named benchmarks (all by default), one after another.
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ALL = ['startup', 'overhead', 'layers', 'throughput', 'memory', 'soak', 'cooldown'];
const names = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const name of names) {
  if (!ALL.includes(name)) throw new Error(`unknown benchmark ${name}; one of ${ALL.join(', ')}`);
  console.log(`\n== ${name}`);
  execFileSync(process.execPath, [path.join(__dirname, `${name}.js`)], { stdio: 'inherit' });
}
