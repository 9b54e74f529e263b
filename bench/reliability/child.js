// One gateway process as a user or an attacker runs it, watched from outside: what it wrote, how it ended
// (exit code, or killed by the probe's timer), its peak RSS and open descriptors. Every child runs in its own
// process group under a hard kill timer, so a build that hangs costs a probe a few seconds, never the run.
'use strict';
const { spawn } = require('node:child_process');
const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { openFds, rssMb } = require('../lib');

/** How long a probe's child may live, unless the probe gives it longer (a router timeout that must pass first). */
const KILL_AFTER_MS = 5_000;

/**
 * Prints the child's own peak RSS (KiB) on exit; a killed child prints nothing and the /proc samples stand.
 * Linux's VmHWM, not getrusage's maxRSS: the latter is kept across execve, so a child forked from this (large)
 * bench process would report the bench's own size as its peak.
 */
const PRELOAD =
  "process.on('exit', () => { try { const fs = require('node:fs'); let kib; try { kib = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]; } catch { kib = process.resourceUsage().maxRSS; } fs.writeSync(2, '\\nmax-rss-kib=' + kib + '\\n'); } catch {} });\n";
const RSS_MARK = /\n?max-rss-kib=(\d+)\n/;

let preloadFile;
function preload() {
  if (!preloadFile) {
    const dir = mkdtempSync(path.join(tmpdir(), 'system1-reliability-'));
    preloadFile = path.join(dir, 'max-rss.js');
    writeFileSync(preloadFile, PRELOAD);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return preloadFile;
}

/** A fresh HOME, XDG config dir and install dir; `extra` adds SYSTEM1_* settings. Never the caller's. */
function sandbox() {
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-reliability-'));
  const env = (extra = {}) => ({
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'xdg'),
    SYSTEM1_INSTALL_DIR: path.join(dir, 'install'),
    ...extra,
  });
  for (const sub of ['home', 'xdg', 'install']) mkdirSync(path.join(dir, sub));
  const file = (name, text) => {
    const full = path.join(dir, name);
    if (text !== undefined) writeFileSync(full, text);
    return full;
  };
  return { dir, env, file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Children that could not load the build (a module missing from dist/, as while another `npm run build` is
 * writing it): the runner retries a probe that met one, since its figures would describe no build at all.
 */
let incompleteBuildStarts = 0;
const INCOMPLETE_BUILD = /Cannot find module|MODULE_NOT_FOUND|SyntaxError/;

/** How many children met an incomplete build since the last call; resets the count. */
function takeIncompleteBuildStarts() {
  const count = incompleteBuildStarts;
  incompleteBuildStarts = 0;
  return count;
}

/** A /proc reading of a process that may have gone: NaN then. */
const live = (read) => (pid) => {
  try {
    return read(pid);
  } catch {
    return NaN;
  }
};
/** VmHWM: the peak resident set of a live process so far, MiB. */
const peakRssMiB = live(
  (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024,
);
const rssMiB = live(rssMb);
const fdCount = live(openFds);

/** Raw terminal controls (ESC, CR, BEL and the rest of C0 but tab and newline, DEL, C1) in text. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Starts `node <main> <args>`; returns the child (to talk to) and `done`, which settles when it has exited
 * or been killed: { exit_code, killed, ended, stdout, stderr, peak_rss_mib, peak_fds }. `ended` in words: "exit N",
 * "killed by the N s timer" (it was still running), or "stopped by the probe" (a server the probe was done with).
 */
function launch(main, args, { env, cwd, killAfterMs = KILL_AFTER_MS, keepStdout = 64 * 1024 * 1024 } = {}) {
  const child = spawn(process.execPath, ['--require', preload(), main, ...args], {
    env,
    cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  child.stdout.on('error', () => undefined);
  const out = [];
  let outBytes = 0;
  const err = [];
  child.stdout.on('data', (chunk) => {
    if (outBytes < keepStdout) out.push(chunk);
    outBytes += chunk.length;
  });
  child.stderr.on('data', (chunk) => err.push(chunk));
  let rss = NaN;
  let fds = NaN;
  const sample = () => {
    const now = peakRssMiB(child.pid);
    if (Number.isFinite(now)) rss = Number.isFinite(rss) ? Math.max(rss, now) : now;
    const open = fdCount(child.pid);
    if (Number.isFinite(open)) fds = Number.isFinite(fds) ? Math.max(fds, open) : open;
  };
  const sampler = setInterval(sample, 100);
  let killed = false;
  let stopped = false;
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    sample();
    try {
      process.kill(-child.pid, 'SIGKILL'); // the group: this child and anything it started
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    killed = true;
    stop();
  }, killAfterMs);
  const done = new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      clearInterval(sampler);
      const stderrText = Buffer.concat(err).toString('utf8');
      if (INCOMPLETE_BUILD.test(stderrText)) incompleteBuildStarts += 1;
      const mark = RSS_MARK.exec(stderrText);
      resolve({
        exit_code: killed || stopped ? null : code,
        killed,
        ended: killed
          ? `killed by the ${killAfterMs / 1000} s timer`
          : stopped
            ? 'stopped by the probe'
            : `exit ${code}`,
        stdout: Buffer.concat(out).toString('utf8'),
        stdout_bytes: outBytes,
        stderr: stderrText.replace(RSS_MARK, ''),
        peak_rss_mib: mark ? Number(mark[1]) / 1024 : rss,
        peak_fds: fds,
      });
    });
  });
  return {
    child,
    done,
    /** stdout so far. */
    stdoutSoFar: () => Buffer.concat(out).toString('utf8'),
    stderrSoFar: () => Buffer.concat(err).toString('utf8'),
    /** Now: peak RSS so far, RSS, open descriptors. */
    sample: () => ({ peak_rss_mib: peakRssMiB(child.pid), rss_mib: rssMiB(child.pid), fds: fdCount(child.pid) }),
    /** Ends a child the probe is done with (a server): SIGKILL to its group. */
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) stopped = true;
      stop();
    },
  };
}

/** Runs to the end with `stdin` written and closed. */
function run(main, args, options = {}) {
  const launched = launch(main, args, options);
  launched.child.stdin.end(options.stdin ?? '');
  return launched.done;
}

/** The JSON lines of a stdout; lines that are not JSON are counted apart. */
function jsonLines(stdout) {
  const messages = [];
  let stray = 0;
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    try {
      messages.push(JSON.parse(line));
    } catch {
      stray += 1;
    }
  }
  return { messages, stray };
}

const stderrLines = (stderr) => stderr.split('\n').filter((line) => line.trim()).length;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const mib = (value) => (Number.isFinite(value) ? Math.round(value * 10) / 10 : null);

module.exports = {
  KILL_AFTER_MS,
  RAW_CONTROL,
  takeIncompleteBuildStarts,
  sandbox,
  launch,
  run,
  jsonLines,
  stderrLines,
  sleep,
  mib,
  peakRssMiB,
  fdCount,
};
