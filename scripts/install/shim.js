'use strict';
// The `system1` command: a small script (`system1` for sh, `system1.cmd` on Windows) that runs the installed
// copy with the node on PATH, as the registration does. It goes in ~/.local/bin when that is on PATH (Claude
// Code's own installer puts `claude` there), else in <install dir>/bin with the line that puts it on PATH.
// A `system1` there of another program is never replaced: ours carries MARK, which uninstall checks too. Nor is
// one elsewhere on PATH newly hidden: a new shell that ran another program as `system1` still runs it.
const fs = require('node:fs');
const path = require('node:path');
const { homeOf } = require('../../src/config/locations');
const { quoteFor } = require('./shell-options');
const { addToProfiles } = require('./profile');

const MARK = 'system1-gateway shim';

function shimName(platform) {
  return platform === 'win32' ? 'system1.cmd' : 'system1';
}

/** cmd expands %VAR% even inside quotes, so a path's own % is doubled. */
function shimText(platform, main) {
  if (platform === 'win32')
    return `@echo off\r\nrem ${MARK}: runs the installed System-1 gateway; its uninstaller removes this file\r\nnode "${main.replace(/%/g, '%%')}" %*\r\n`;
  return `#!/bin/sh\n# ${MARK}: runs the installed System-1 gateway; its uninstaller removes this file\nexec node ${quoteFor('sh', main)} "$@"\n`;
}

/** The places a shim may be, in the order the installer prefers them. */
function shimDirs(env, dir) {
  return [path.join(homeOf(env), '.local', 'bin'), path.join(dir, 'bin')];
}

function samePath(a, b, platform) {
  const [x, y] = [path.resolve(a), path.resolve(b)];
  return platform === 'win32' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

function pathEntries(env) {
  return (env.PATH || env.Path || '').split(path.delimiter).filter(Boolean);
}

function onPath(dir, env, platform) {
  return pathEntries(env).some((entry) => samePath(entry, dir, platform));
}

function isProgram(file, platform) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch (error) {
    return false;
  }
}

/** Every `system1` a new shell could run, in the order it looks (on Windows, with any of PATHEXT's endings). */
function programsOnPath(env, platform) {
  const endings = platform === 'win32' ? (env.PATHEXT || '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  const found = [];
  for (const entry of pathEntries(env)) {
    for (const ending of endings) {
      const file = path.join(entry, `system1${ending.toLowerCase()}`);
      if (isProgram(file, platform) && !found.some((seen) => samePath(seen, file, platform))) found.push(file);
    }
  }
  return found;
}

/** Where `dir` comes on PATH: its first place, or -1. */
function placeOnPath(dir, env, platform) {
  return pathEntries(env).findIndex((entry) => samePath(entry, dir, platform));
}

/**
 * Other programs' `system1` that a shim in `target` would hide: those after it on PATH, or all of them when
 * `target` is not on PATH (the line the installer gives puts it first).
 */
function hiddenBy(target, env, platform) {
  const place = placeOnPath(target, env, platform);
  return programsOnPath(env, platform).filter((file) => {
    if (ownerOf(file) === 'ours') return false;
    return place === -1 || place < placeOnPath(path.dirname(file), env, platform);
  });
}

/**
 * 'ours', 'foreign' or 'none' for what is at `file`. Only a regular file can be ours, and only its first lines
 * are read: a link (even one to nowhere, which a write would follow) or a FIFO is someone else's.
 */
function ownerOf(file) {
  let stats;
  try {
    stats = fs.lstatSync(file);
  } catch (error) {
    return error.code === 'ENOENT' ? 'none' : 'foreign';
  }
  if (!stats.isFile()) return 'foreign';
  let head;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const bytes = Buffer.alloc(4096);
      head = bytes.toString('utf8', 0, fs.readSync(fd, bytes, 0, bytes.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return 'foreign';
  }
  return head
    .split(/\r?\n/)
    .slice(0, 3)
    .some((line) => line.includes(MARK))
    ? 'ours'
    : 'foreign';
}

/** The line that puts `dir` on PATH for the shell the user typed the installer into, and where it goes. */
function pathAdvice(dir, shell, env) {
  if (shell === 'powershell') {
    const line = `[Environment]::SetEnvironmentVariable('Path', ${quoteFor('powershell', `${dir};`)} + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')`;
    return `Run this once in PowerShell, then open a new terminal:\n  ${line}`;
  }
  const name = path.basename(env.SHELL || '');
  const profile = name === 'zsh' ? '~/.zshrc' : name === 'bash' ? '~/.bashrc' : '~/.profile';
  return `Add this line to ${profile}, then open a new shell:\n  export PATH=${quoteFor('sh', dir)}:"$PATH"`;
}

/**
 * Writes the shim for `main` (the installed dist/main.js) and returns what to tell the user. When its folder is
 * not on PATH, `modifyPath` adds it in the shell's profiles (./profile.js); else the line to add is printed. A shim of ours in
 * the place not chosen (left by an install under another PATH) goes, so only one copy stays. Another
 * program's `system1` is never replaced, and never newly hidden: with one later on PATH (or on PATH at all,
 * when the shim's folder is not), no shim is written. One of ours that a new shell already runs is kept
 * (the upgrade changes nothing about which runs), and the message names what it hides.
 * @returns {string}
 */
function installShim(main, { env, dir, shell, platform = process.platform, modifyPath = false }) {
  const [preferred, fallback] = shimDirs(env, dir);
  const target = onPath(preferred, env, platform) ? preferred : fallback;
  const file = path.join(target, shimName(platform));
  const owner = ownerOf(file);
  if (owner === 'foreign') {
    return `Left ${file} as it is: it is not the gateway's (it has no "${MARK}" line), so there is no system1 command from this install. Run the gateway as node ${quoteFor(shell, main)}, or remove that file and run the installer again.`;
  }
  const hidden = hiddenBy(target, env, platform);
  if (hidden.length > 0 && owner === 'none') {
    return `Left no system1 command: ${hidden[0]}, another program's system1, is on PATH, and one in ${target} would hide it. Run the gateway as node ${quoteFor(shell, main)}, or remove ${hidden[0]} and run the installer again.`;
  }
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(file, shimText(platform, main), { mode: 0o755 });
  fs.chmodSync(file, 0o755);
  if (target === preferred) removeOurs(path.join(fallback, shimName(platform)), true);
  else removeOurs(path.join(preferred, shimName(platform)), false);
  const hides =
    hidden.length > 0
      ? ` It hides ${hidden[0]}, another program's system1, later on PATH: remove ${file} (the uninstaller does) to run that one again.`
      : '';
  if (!onPath(target, env, platform)) {
    const before = hidden.length > 0 ? `\nThat line puts it before ${hidden[0]}, another program's system1.` : '';
    // PowerShell's user PATH is the registry's; only sh-family profiles are written
    const advice = modifyPath && shell === 'sh' ? addToProfiles(target, env) : pathAdvice(target, shell, env);
    return `Added the system1 command: ${file}. Its folder is not on PATH. ${advice}${before}`;
  }
  const first = programsOnPath(env, platform)[0];
  if (first && !samePath(first, file, platform))
    return `Added the system1 command: ${file}, but a new shell runs ${first} instead, which comes before it on PATH.`;
  return `Added the system1 command: ${file} (its folder is on PATH).${hides}`;
}

/**
 * Deletes `file` if it is our shim, and with `dropDir` its folder if that leaves it empty (the install dir's
 * bin/ is ours; ~/.local/bin is not); true when it deleted the shim.
 */
function removeOurs(file, dropDir) {
  if (ownerOf(file) !== 'ours') return false;
  fs.rmSync(file, { force: true });
  if (dropDir && fs.readdirSync(path.dirname(file)).length === 0) fs.rmdirSync(path.dirname(file));
  return true;
}

/**
 * Removes the shims of ours from every place the installer may have put one; another program's `system1` stays.
 * @returns {string[]} what to tell the user
 */
function removeShims({ env, dir, platform = process.platform }) {
  const said = [];
  const [preferred, fallback] = shimDirs(env, dir);
  for (const place of [preferred, fallback]) {
    const file = path.join(place, shimName(platform));
    if (removeOurs(file, place === fallback)) said.push(`Removed the system1 command ${file}.`);
    else if (ownerOf(file) === 'foreign') said.push(`Left ${file} as it is: it is not the gateway's.`);
  }
  return said;
}

module.exports = { MARK, shimName, shimText, installShim, removeShims };
