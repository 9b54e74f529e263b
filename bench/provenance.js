// What a results file says about where its figures came from: the commit (and whether src/ or the lock file
// had uncommitted changes), the machine and how loaded it was, the date and the exact command. The checker
// (bench/report.js --check) reads these back to tell current results from stale ones.
'use strict';
const { execFileSync } = require('node:child_process');
const { cpus, totalmem, hostname, loadavg, platform, release, arch } = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** Where results files go; BENCH_RESULTS_DIR elsewhere keeps a trial run away from the published files. */
const RESULTS = path.resolve(process.env.BENCH_RESULTS_DIR || path.join(__dirname, 'results'));
/** What the measured build is made of: results taken before a change here are stale. */
const MEASURED_PATHS = ['src', 'package-lock.json'];

/** git's output (undefined when git fails, or outside a checkout). */
function git(args, cwd = ROOT) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** The commit of a checkout and the measured files that differ from it (undefined outside git). */
function commitOf(dir) {
  const commit = git(['rev-parse', 'HEAD'], dir)?.trim();
  if (!commit) return { commit: null, src_dirty: null, dirty_files: [] };
  // -z: entries "XY path" split by NUL, paths as they are (a rename's old path follows as its own entry).
  const status = git(['status', '--porcelain', '-z', '--', ...MEASURED_PATHS], dir) ?? '';
  const dirty = status
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => (/^[ MADRCU?!]{2} /.test(entry) ? entry.slice(3) : entry));
  return { commit, src_dirty: dirty.length > 0, dirty_files: dirty };
}

/** The checkout a `dist/main.js` was built in (its parent's parent), for a baseline build in a worktree. */
function buildOf(main) {
  const checkout = path.resolve(path.dirname(main), '..');
  return { main, checkout, ...commitOf(checkout) };
}

function machine() {
  return {
    hostname: hostname(),
    platform: `${platform()} ${release()} ${arch()}`,
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** The variables that change what a benchmark measures, as they were set. */
function benchEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => /^BENCH_/.test(name) && name !== 'BENCH_INVOKED_AS'),
  );
}

/** A word as a POSIX shell reads it back. */
const quote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** `command` with the BENCH_* variables in front, as it can be pasted into a shell. */
const withBenchEnv = (command) =>
  [...Object.entries(benchEnv()).map(([name, value]) => `${name}=${quote(value)}`), command].join(' ');

/** The command line that ran this script, as it can be pasted. */
const commandLine = () =>
  withBenchEnv(
    [
      'node',
      ...(process.argv[1] ? [path.relative(ROOT, process.argv[1]) || process.argv[1]] : []),
      ...process.argv.slice(2),
    ]
      .map(quote)
      .join(' '),
  );

/** Taken when a benchmark starts; `finish` adds what changed by the time it saves. */
function start() {
  return { build: commitOf(ROOT), started: new Date().toISOString(), load_average_start: loadavg() };
}

/** The provenance block of a results file. */
function finish(started, { baselineMain, quick }) {
  const now = commitOf(ROOT);
  const changed =
    now.commit !== started.build.commit ||
    now.src_dirty !== started.build.src_dirty ||
    String(now.dirty_files) !== String(started.build.dirty_files);
  return {
    commit: started.build.commit,
    // Dirty if src/ or the lock file differed from the commit at the start or the end of the run.
    src_dirty: started.build.src_dirty || now.src_dirty || changed,
    dirty_files: [...new Set([...started.build.dirty_files, ...now.dirty_files])],
    ...(changed && { changed_during_run: true }),
    date: started.started,
    finished: new Date().toISOString(),
    command: commandLine(),
    invoked_as: process.env.BENCH_INVOKED_AS ?? commandLine(),
    env: benchEnv(),
    quick,
    machine: { ...machine(), load_average_start: started.load_average_start, load_average_end: loadavg() },
    ...(baselineMain && { baseline: buildOf(baselineMain) }),
  };
}

module.exports = { ROOT, RESULTS, MEASURED_PATHS, git, commitOf, start, finish, withBenchEnv };
