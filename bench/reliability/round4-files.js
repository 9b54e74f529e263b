// Round four's probes of `system1 label` on hostile routing logs and of the installer's `system1` command:
// a hook appending while label rewrites a damaged log, logs far larger than memory should hold, an export
// named at a FIFO, a log that is a symbolic link, another program's `system1` on PATH, and install dirs Node
// cannot load packages from. Each records what a user sees (exit, lines lost, peak RSS, files changed), never
// a timing. Nothing here needs an engine; everything runs in a throwaway sandbox.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} = require('node:fs');
const path = require('node:path');
const { RAW_CONTROL, launch, sandbox, run, mib } = require('./child');

const MIB = 1024 * 1024;
const LABELS = { read_only: true, design: false, review: false, specified: true, tier: 'haiku' };
const longPrompt = (i) => `Task ${i}: why does the build fail?\n${'pasted build output line\n'.repeat(2500)}`;
const routed = (i, extra = {}) =>
  JSON.stringify({ source: 'routing', prompt_id: `p${i}`, prompt: longPrompt(i), tier: 'sonnet', ...extra });

function labelsFile(box, ids) {
  return box.file('labels.jsonl', ids.map((id) => JSON.stringify({ id, ...LABELS })).join('\n') + '\n');
}

/** Three routed entries, then 128 MiB of NUL bytes with no newline: the end a crash can leave. */
function damagedLog(box) {
  const log = path.join(box.dir, 'routing.jsonl');
  const fd = openSync(log, 'w');
  writeSync(
    fd,
    [0, 1, 2].map((i) => JSON.stringify({ source: 'routing', prompt_id: `p${i}`, prompt: 'x' })).join('\n') + '\n',
  );
  ftruncateSync(fd, 128 * MIB);
  closeSync(fd);
  return log;
}

/**
 * A hook process appending through the build's own appendLogLine (as the UserPromptSubmit hook does) from
 * the moment `label apply` starts its rewrite: 20 lines, stopping after 2 that fail (each waits out the
 * lock first). Prints {appended, failed} on exit.
 */
function startAppender(main, log) {
  const script = `
    const { appendLogLine } = require(${JSON.stringify(path.join(path.dirname(main), 'routing', 'routing-log.js'))});
    const { readdirSync } = require('node:fs');
    const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    const stop = Date.now() + 60000;
    while (!readdirSync(${JSON.stringify(path.dirname(log))}).some((n) => n.endsWith('.rewrite')) && Date.now() < stop) pause(2);
    let appended = 0, failed = 0;
    for (let i = 0; i < 20 && failed < 2; i++, pause(20)) {
      try { appendLogLine(${JSON.stringify(log)}, { source: 'routing', prompt_id: 'hook-' + i, prompt: 'hook' }); appended++; }
      catch { failed++; }
    }
    process.stdout.write(JSON.stringify({ appended, failed }));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return new Promise((resolve) => child.on('close', () => resolve(JSON.parse(out || '{"appended":0,"failed":0}'))));
}

/**
 * Entries a reader finds with a prompt_id starting with `prefix` in the log's last 64 KiB (where the hook's
 * land, after the NUL tail): a line glued onto the tail does not parse, and counts as lost.
 */
function countIds(log, prefix) {
  const size = statSync(log).size;
  const fd = openSync(log, 'r');
  const tail = Buffer.alloc(Math.min(size, 64 * 1024));
  readSync(fd, tail, 0, tail.length, size - tail.length);
  closeSync(fd);
  return tail
    .toString('utf8')
    .split('\n')
    .filter((line) => {
      try {
        return String(JSON.parse(line).prompt_id).startsWith(prefix);
      } catch {
        return false;
      }
    }).length;
}

/** label apply on the damaged log while the hook appends: appends refused (their entries lost) and lines lost. */
async function labelApplyBesideHook(main) {
  const box = sandbox();
  try {
    const log = damagedLog(box);
    const hook = startAppender(main, log);
    const result = await run(main, ['label', 'apply', labelsFile(box, ['p1']), '--log', log], {
      env: box.env(),
      killAfterMs: 90_000,
    });
    const { appended, failed } = await hook;
    const kept = countIds(log, 'hook-');
    return {
      exit_code: result.exit_code,
      ended: result.ended,
      hook_appends_refused: failed,
      hook_lines_lost: appended - kept,
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

/** label apply alone on the damaged log: does it finish, keep the 128 MiB tail, and in how much memory? */
async function labelApplyLongLine(main) {
  const box = sandbox();
  try {
    const log = damagedLog(box);
    const before = statSync(log).size;
    const result = await run(main, ['label', 'apply', labelsFile(box, ['p1']), '--log', log], {
      env: box.env(),
      killAfterMs: 90_000,
    });
    return {
      exit_code: result.exit_code,
      ended: result.ended,
      labelled: /Labelled 1 routed prompts/.test(result.stdout),
      tail_kept: statSync(log).size - before === ',"labels":'.length + JSON.stringify(LABELS).length,
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

/** label list of 800 waiting prompts of 60 KB (52 MB of log): all listed, and the peak RSS. */
async function labelListLarge(main) {
  const box = sandbox();
  try {
    const log = box.file('routing.jsonl', Array.from({ length: 800 }, (_, i) => routed(i)).join('\n') + '\n');
    const result = await run(main, ['label', 'list', '--log', log], { env: box.env(), killAfterMs: 60_000 });
    let listed = null;
    try {
      listed = JSON.parse(result.stdout).entries.length;
    } catch {
      // no JSON
    }
    return { exit_code: result.exit_code, listed, peak_rss_mib: mib(result.peak_rss_mib) };
  } finally {
    box.dispose();
  }
}

/** label export of 800 labelled prompts of 60 KB (4,000 rows, 260 MB written): rows written, peak RSS. */
async function labelExportLarge(main) {
  const box = sandbox();
  try {
    const lines = Array.from({ length: 800 }, (_, i) => routed(i, { labels: LABELS }));
    const log = box.file('routing.jsonl', lines.join('\n') + '\n');
    const out = path.join(box.dir, 'labelled.jsonl');
    const result = await run(main, ['label', 'export', out, '--log', log], { env: box.env(), killAfterMs: 60_000 });
    let rows = 0;
    if (existsSync(out)) {
      const fd = openSync(out, 'r');
      const chunk = Buffer.alloc(MIB);
      for (let read; (read = readSync(fd, chunk, 0, chunk.length, null)) > 0;)
        for (let i = 0; i < read; i++) if (chunk[i] === 0x0a) rows += 1;
      closeSync(fd);
    }
    return { exit_code: result.exit_code, rows, peak_rss_mib: mib(result.peak_rss_mib) };
  } finally {
    box.dispose();
  }
}

/** `label list | head`: the reader closes the pipe after the first chunk. Exit, and a stack on stderr? */
async function labelListPipeClosed(main) {
  const box = sandbox();
  try {
    const log = box.file('routing.jsonl', Array.from({ length: 200 }, (_, i) => routed(i)).join('\n') + '\n');
    const launched = launch(main, ['label', 'list', '--log', log], { env: box.env(), killAfterMs: 20_000 });
    launched.child.stdin.end();
    launched.child.stdout.once('data', () => launched.child.stdout.destroy());
    const result = await launched.done;
    return {
      exit_code: result.exit_code,
      ended: result.ended,
      stack_on_stderr: /EPIPE|\n\s+at /.test(result.stderr),
    };
  } finally {
    box.dispose();
  }
}

/** An exported prompt holding C1 controls (CSI) and an OSC title sequence: raw in the exported file? */
async function labelExportControls(main) {
  const box = sandbox();
  try {
    const prompt = 'Review it\u009b2J\u001b]0;pwned\u0007 and this';
    const log = box.file(
      'routing.jsonl',
      `${JSON.stringify({ source: 'routing', prompt_id: 'p1', prompt, labels: LABELS })}\n`,
    );
    const out = path.join(box.dir, 'labelled.jsonl');
    const result = await run(main, ['label', 'export', out, '--log', log], { env: box.env() });
    return { exit_code: result.exit_code, raw_controls_in_file: RAW_CONTROL.test(readFileSync(out, 'utf8')) };
  } finally {
    box.dispose();
  }
}

/** label export named at a FIFO: does it exit, and is the FIFO named? */
async function labelExportFifo(main) {
  const box = sandbox();
  try {
    const log = box.file('routing.jsonl', `${routed(1, { labels: LABELS })}\n`);
    const out = path.join(box.dir, 'labelled.jsonl');
    execFileSync('mkfifo', [out]);
    const result = await run(main, ['label', 'export', out, '--log', log], { env: box.env() });
    return { exit_code: result.exit_code, ended: result.ended, names_fifo: /is a FIFO/.test(result.stderr) };
  } finally {
    box.dispose();
  }
}

/**
 * The routing log a symbolic link to a shell profile (as one planted in a shared folder would be): the spawn
 * hook appends and label apply rewrites. Was the profile written to, and is the link still a link?
 */
async function routingLogSymlink(main) {
  const box = sandbox();
  try {
    const profile = box.file('profile', 'export EDITOR=vi\n');
    const repo = path.join(box.dir, 'repo');
    mkdirSync(repo);
    const link = path.join(box.dir, 'routing.jsonl');
    writeFileSync(path.join(box.dir, 'seed.jsonl'), JSON.stringify({ source: 'routing', prompt_id: 'p1' }) + '\n');
    const config = box.file(
      'config.toml',
      `[gateway]\nprovider = "mock"\n[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${link}"\n`,
    );
    const env = box.env({ SYSTEM1_CONFIG: config });
    symlinkSync(profile, link);
    const hook = await run(main, ['spawn-hook'], {
      env,
      stdin: JSON.stringify({
        session_id: 's-1',
        hook_event_name: 'PreToolUse',
        cwd: repo,
        tool_name: 'Agent',
        tool_use_id: 'toolu_1',
        tool_input: { description: 'Review', prompt: 'Review it', model: 'sonnet' },
      }),
    });
    const afterHook = readFileSync(profile, 'utf8');
    // a profile that holds a routed line (the hook's, or one put there before) for label to rewrite
    writeFileSync(profile, `export EDITOR=vi\n${JSON.stringify({ source: 'routing', prompt_id: 'p1' })}\n`);
    const before = readFileSync(profile, 'utf8');
    const applied = await run(main, ['label', 'apply', labelsFile(box, ['p1']), '--log', link], { env });
    return {
      hook_exit: hook.exit_code,
      hook_wrote_through_link: afterHook !== 'export EDITOR=vi\n',
      apply_exit: applied.exit_code,
      apply_wrote_through_link: readFileSync(profile, 'utf8') !== before,
      link_kept: lstatSync(link).isSymbolicLink(),
      names_link: /is a symbolic link/.test(applied.stderr),
    };
  } finally {
    box.dispose();
  }
}

/**
 * A routing log whose last line was cut off at a crash, then a routed prompt appended by the build's own
 * appendLogLine (as the route hook appends): does `label list` still find that prompt?
 */
async function appendAfterCutLine(main) {
  const box = sandbox();
  try {
    const { appendLogLine } = require(path.join(path.dirname(main), 'routing', 'routing-log.js'));
    const log = box.file('routing.jsonl', `${JSON.stringify({ source: 'routing', prompt_id: 'p1' })}\n{"source":"rout`);
    appendLogLine(log, { source: 'routing', prompt_id: 'p2', prompt: 'appended after the crash' });
    const result = await run(main, ['label', 'list', '--log', log], { env: box.env() });
    let ids = [];
    try {
      ids = JSON.parse(result.stdout).entries.map((entry) => entry.id);
    } catch {
      // no JSON
    }
    return { exit_code: result.exit_code, appended_entry_listed: ids.includes('p2') };
  } finally {
    box.dispose();
  }
}

/** label list with the log's folder a link to /dev/zero: exit, and whether the message names the log. */
async function labelFolderDevZero(main) {
  const box = sandbox();
  try {
    symlinkSync('/dev/zero', path.join(box.dir, 'logs'));
    const log = path.join(box.dir, 'logs', 'routing.jsonl');
    const result = await run(main, ['label', 'list', '--log', log], { env: box.env() });
    return { exit_code: result.exit_code, ended: result.ended, names_log: result.stderr.includes(log) };
  } finally {
    box.dispose();
  }
}

// ---- the installer's system1 command ----------------------------------------------------------------------

/** The build's repository (dist/..): its scripts/install are what install.sh runs. */
const repoOf = (main) => path.dirname(path.dirname(main));

/** What `sh -c 'command -v system1'` finds on `PATH`: the program a new shell runs. */
function newShellRuns(PATH) {
  try {
    return execFileSync('sh', ['-c', 'command -v system1'], { env: { PATH }, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/**
 * Another program's system1 in a folder after ~/.local/bin on PATH (installed by the user before): after the
 * installer's shim step, which does a new shell run, and does the message name the other program?
 */
async function shimBeforeOtherProgram(main) {
  const box = sandbox();
  try {
    const { installShim } = require(path.join(repoOf(main), 'scripts', 'install', 'shim.js'));
    const other = path.join(box.dir, 'other-bin', 'system1');
    mkdirSync(path.dirname(other));
    writeFileSync(other, '#!/bin/sh\necho other\n');
    chmodSync(other, 0o755);
    const home = path.join(box.dir, 'home');
    const localBin = path.join(home, '.local', 'bin');
    mkdirSync(localBin, { recursive: true });
    const PATH = [localBin, path.dirname(other), '/usr/bin', '/bin'].join(path.delimiter);
    const said = installShim(path.join(box.dir, 'install', 'app', 'dist', 'main.js'), {
      env: { HOME: home, PATH },
      dir: path.join(box.dir, 'install'),
      shell: 'sh',
      platform: 'linux',
    });
    const runs = newShellRuns(PATH);
    return {
      new_shell_runs: runs === other ? 'the other program' : runs ? 'the gateway shim' : 'nothing',
      message_names_other: said.includes(other),
    };
  } finally {
    box.dispose();
  }
}

/** A dangling link named system1 in ~/.local/bin: does the shim step create the file it points at? */
async function shimDanglingLink(main) {
  const box = sandbox();
  try {
    const { installShim } = require(path.join(repoOf(main), 'scripts', 'install', 'shim.js'));
    const home = path.join(box.dir, 'home');
    const localBin = path.join(home, '.local', 'bin');
    mkdirSync(localBin, { recursive: true });
    const aimedAt = path.join(box.dir, 'elsewhere', 'system1');
    mkdirSync(path.dirname(aimedAt));
    symlinkSync(aimedAt, path.join(localBin, 'system1'));
    installShim(path.join(box.dir, 'install', 'app', 'dist', 'main.js'), {
      env: { HOME: home, PATH: localBin },
      dir: path.join(box.dir, 'install'),
      shell: 'sh',
      platform: 'linux',
    });
    return { wrote_through_link: existsSync(aimedAt) };
  } finally {
    box.dispose();
  }
}

/**
 * The installer with SYSTEM1_INSTALL_DIR under a folder named with a backslash (a HOME can be), npm a
 * stand-in that records and succeeds: refused before npm, or "Installed" a copy Node cannot start?
 */
async function installDirBackslash(main) {
  const box = sandbox();
  try {
    const tools = path.join(box.dir, 'tools');
    mkdirSync(tools);
    const calls = path.join(box.dir, 'npm-calls.txt');
    writeFileSync(path.join(tools, 'npm'), `#!/bin/sh\necho "npm $*" >> "${calls}"\n`);
    chmodSync(path.join(tools, 'npm'), 0o755);
    const dir = path.join(box.dir, 'C:\\Users\\me', '.system1-gateway');
    const launched = launch(path.join(repoOf(main), 'scripts', 'install.js'), ['--no-setup'], {
      env: { ...box.env({ SYSTEM1_INSTALL_DIR: dir }), PATH: `${tools}${path.delimiter}${process.env.PATH}` },
      cwd: box.dir,
      killAfterMs: 60_000,
    });
    launched.child.stdin.end();
    const result = await launched.done;
    return {
      exit_code: result.exit_code,
      refused: /refusing to install into/.test(result.stderr),
      npm_ran: existsSync(calls),
      said_installed: /Installed System-1 gateway/.test(result.stdout),
    };
  } finally {
    box.dispose();
  }
}

module.exports = {
  label_apply_beside_hook: labelApplyBesideHook,
  label_apply_long_line: labelApplyLongLine,
  label_list_large: labelListLarge,
  label_export_large: labelExportLarge,
  label_list_pipe_closed: labelListPipeClosed,
  label_export_controls: labelExportControls,
  label_export_fifo: labelExportFifo,
  routing_log_symlink: routingLogSymlink,
  append_after_cut_line: appendAfterCutLine,
  label_folder_dev_zero: labelFolderDevZero,
  shim_before_other_program: shimBeforeOtherProgram,
  shim_dangling_link: shimDanglingLink,
  install_dir_backslash: installDirBackslash,
};
