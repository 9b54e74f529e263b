// Shared pieces of the benchmarks: fake engines (compiled from test/fakes), the gateway and a minimal
// SDK-only server started the way MCP clients start them, percentiles, RSS, and result files.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { mkdirSync, mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const provenance = require('./provenance');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');
const { RESULTS } = provenance;
/**
 * BENCH_QUICK=1: every benchmark at a fraction of its size, to check the plumbing on a busy machine. Its
 * files say so, and `npm run bench -- --check` refuses them as figures.
 */
const QUICK = process.env.BENCH_QUICK === '1';
const STARTED = provenance.start();

/** A size, or its reduced form under BENCH_QUICK. */
const sized = (full, quick) => (QUICK ? quick : full);

/** A fake engine from dist-fakes (npm run bench compiles them). */
function fake(name) {
  const { FAKE_ENGINES } = require(path.join(ROOT, 'dist-fakes', 'index.js'));
  const engine = FAKE_ENGINES[name]();
  engine.record = false;
  return engine;
}

/**
 * An isolated environment: no user config, no pause file, and the log at INFO, the level a user gets unless
 * they choose another (a line per decision; the servers' stderr goes to /dev/null here).
 */
function isolatedEnv(extra = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-bench-'));
  return {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'xdg'),
    SYSTEM1_INSTALL_DIR: path.join(dir, 'install'),
    SYSTEM1_LOG_LEVEL: 'INFO',
    ...extra,
  };
}

/** Starts a stdio MCP server as a client does and connects the SDK client to it. */
async function connect(args, env) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'system1-bench', version: '0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

const gateway = (env, main = MAIN) => connect([main, 'mcp'], env);

/**
 * Another build's dist/main.js to measure beside this one, interleaved (`BENCH_BASELINE_MAIN=... npm run
 * bench -- startup memory soak`), for before/after figures from one run: for example a worktree of the
 * commit before a change, built with `npm ci && npm run build`.
 */
const BASELINE_MAIN = process.env.BENCH_BASELINE_MAIN || undefined;

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
}

/** Runs `task(i)` `total` times with `inFlight` at once; returns each run's duration in ms. */
async function drive(total, inFlight, task) {
  const durations = new Array(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const started = performance.now();
      await task(i);
      durations[i] = performance.now() - started;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return durations;
}

/** Resident memory of a process, in MB (Linux /proc). */
function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** Open file descriptors of a process (sockets included). */
function openFds(pid) {
  return require('node:fs').readdirSync(`/proc/${pid}/fd`).length;
}

/** Writes bench/results/<name>.json: the figures, after where they came from (commit, machine, date, command). */
function save(name, result, { baseline = BASELINE_MAIN } = {}) {
  mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ provenance: provenance.finish(STARTED, { baselineMain: baseline, quick: QUICK }), ...result }, null, 2)}\n`,
  );
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** The median of a list of numbers (the upper one of the middle two for an even count). */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `names` in a different order each round (rotated), so no build always runs first. */
const rotated = (names, round) => names.map((_, i) => names[(i + round) % names.length]);

const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

module.exports = {
  ROOT,
  MAIN,
  RESULTS,
  BASELINE_MAIN,
  QUICK,
  sized,
  fake,
  isolatedEnv,
  connect,
  gateway,
  summary,
  drive,
  rssMb,
  openFds,
  save,
  ms,
  percentile,
  median,
  rotated,
};
