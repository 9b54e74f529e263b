// npm run bench [-- name ...]: builds, runs the named benchmarks (all by default) one after another, redraws
// the chart and renders bench/RESULTS.md from bench/RESULTS.template.md and the results files.
//   npm run bench -- --report    renders RESULTS.md from the results files as they are (no build, no run)
//   npm run bench -- --check     fails, naming each problem, unless RESULTS.md is a current render (no build)
// Environment: BENCH_BASELINE_MAIN (another build's dist/main.js, measured beside this one), BENCH_QUICK=1
// (reduced sizes, to check the plumbing; --check refuses such files), BENCH_RESULTS_DIR (write elsewhere).
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { withBenchEnv } = require('./provenance');

const ROOT = path.resolve(__dirname, '..');
const ALL = [
  'startup',
  'overhead',
  'layers',
  'throughput',
  'profile',
  'decomposition',
  'http',
  'decisions-api',
  'callers',
  'memory',
  'soak',
  'cooldown',
  'state-store',
  'pools',
  'reliability',
  'reliability-3',
  'reliability-4',
  'routing',
];
/** Run only when named: `clients` installs real MCP clients from the npm registry into a temp prefix. */
const ON_REQUEST = ['clients'];
/** The routing study runs against the fake engine here; `node bench/routing/run.js` asks the configured one. */
const SCRIPTS = {
  routing: ['routing/run.js', '--fake'],
  'reliability-3': ['reliability.js', '--round', '3'],
  'reliability-4': ['reliability.js', '--round', '4'],
};

const node = (args) => execFileSync(process.execPath, args, { stdio: 'inherit', cwd: ROOT });

/** npm itself, as the one that started us when there is one (npm_execpath), so it works where npm is a .cmd. */
function npm(args) {
  if (process.env.npm_execpath) return node([process.env.npm_execpath, ...args]);
  return execFileSync('npm', args, { stdio: 'inherit', cwd: ROOT, shell: process.platform === 'win32' });
}

function main(argv) {
  if (argv.includes('--check') || argv.includes('--report')) {
    // report.js renders by default; --check (and --results/--template/--output) pass through.
    try {
      node([path.join(__dirname, 'report.js'), ...argv.filter((arg) => arg !== '--report')]);
    } catch {
      process.exitCode = 1;
    }
    return;
  }
  const names = argv.length ? argv : ALL;
  const unknown = names.filter((name) => !ALL.includes(name) && !ON_REQUEST.includes(name));
  if (unknown.length)
    throw new Error(
      `unknown benchmark ${unknown.join(', ')}; one of ${[...ALL, ...ON_REQUEST].join(', ')} (or --report, --check)`,
    );
  if (process.env.BENCH_BASELINE_MAIN) {
    process.env.BENCH_BASELINE_MAIN = path.resolve(process.env.BENCH_BASELINE_MAIN);
    if (!existsSync(process.env.BENCH_BASELINE_MAIN)) {
      throw new Error(
        `BENCH_BASELINE_MAIN=${process.env.BENCH_BASELINE_MAIN} does not exist: build the baseline first (bench/RESULTS.template.md says how)`,
      );
    }
  }
  // One line anyone can paste to run the same again, recorded in every results file.
  const invoked =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`
      : `node bench/run.js ${argv.join(' ')}`.trim();
  process.env.BENCH_INVOKED_AS = withBenchEnv(invoked);

  console.log('== build (npm run build, then the fake engines)');
  try {
    npm(['run', 'build', '--silent']);
    node([path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.fakes.json']);
  } catch {
    console.error('the build failed (its output is above): nothing was measured');
    process.exitCode = 1;
    return;
  }

  const steps = [
    ...names.map((name) => {
      const [script, ...args] = SCRIPTS[name] ?? [`${name}.js`];
      return [name, [path.join(__dirname, script), ...args]];
    }),
    ['chart', [path.join(__dirname, 'chart.js')]],
    ['report', [path.join(__dirname, 'report.js')]],
  ];
  // A failed step is named at the end; the others still run, so RESULTS.md shows what there is.
  const failed = [];
  for (const [name, args] of steps) {
    console.log(`\n== ${name}`);
    try {
      node(args);
    } catch {
      failed.push(name);
    }
  }
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

main(process.argv.slice(2));
