'use strict';
// Puts the shim's folder on PATH the way rustup, uv and bun do: one line in the profiles the user's shell reads,
// marked so the uninstaller removes exactly that line, and the one command that makes it work in the shell
// already open. Only for sh-family shells; `--no-modify-path` leaves every profile alone and prints the line.
// (Parsed by old Node.js before the version gate: ES2017 only, no ?. or ??.)
const fs = require('node:fs');
const path = require('node:path');
const { homeOf } = require('../../src/config/locations');
const { quoteFor } = require('./shell-options');

const PROFILE_MARK = '# system1-gateway: puts its command on PATH; its uninstaller removes this line';

/** Every profile the installer may write, relative to HOME: the places the uninstaller looks. */
const PROFILES = ['.profile', '.bashrc', '.bash_profile', '.bash_login', '.zshenv'];

/**
 * The profiles a new shell of the user's kind reads, relative to HOME. bash reads ~/.bashrc when interactive and
 * only its first login file when a login shell (`bash -l`, a new terminal on macOS), so it gets both; zsh reads
 * ~/.zshenv in every mode; anything else (sh, dash, ksh) reads ~/.profile at login.
 */
function profilesFor(env) {
  const home = homeOf(env);
  const shell = path.basename(env.SHELL || '');
  if (shell === 'zsh') return ['.zshenv'];
  if (shell !== 'bash') return ['.profile'];
  const login = ['.bash_profile', '.bash_login'].find((name) => fs.existsSync(path.join(home, name)));
  return ['.bashrc', login || '.profile'];
}

/** The line: adds `dir` in front of PATH unless it is there already, so sourcing a profile twice adds it once. */
function pathLine(dir) {
  const quoted = quoteFor('sh', dir);
  return `case ":$PATH:" in *:${quoted}:*) ;; *) export PATH=${quoted}:"$PATH" ;; esac ${PROFILE_MARK}`;
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return '';
    throw error;
  }
}

function isOurs(line) {
  return line.endsWith(PROFILE_MARK);
}

/**
 * Writes the PATH line for `dir` into the profiles of the user's shell (replacing one of ours for another dir)
 * and returns what to tell the user: which files, and the command for the shell that is already open.
 * @returns {string}
 */
function addToProfiles(dir, env) {
  const home = homeOf(env);
  const line = pathLine(dir);
  const written = [];
  for (const name of profilesFor(env)) {
    const file = path.join(home, name);
    const kept = readText(file)
      .split('\n')
      .filter((existing) => !isOurs(existing));
    while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
    fs.writeFileSync(file, `${kept.concat(kept.length > 0 ? ['', line] : [line]).join('\n')}\n`);
    written.push(`~/${name}`);
  }
  return (
    `Added its folder to PATH in ${written.join(' and ')} (new shells find system1; --no-modify-path skips this). ` +
    `For the shell already open, run:\n  export PATH=${quoteFor('sh', dir)}:"$PATH"`
  );
}

/**
 * Removes our PATH line from every profile the installer may have written; a user's own lines stay.
 * @returns {string[]} what to tell the user
 */
function removeFromProfiles(env) {
  const home = homeOf(env);
  const said = [];
  for (const name of PROFILES) {
    const file = path.join(home, name);
    const text = readText(file);
    const lines = text.split('\n');
    if (!lines.some(isOurs)) continue;
    const kept = lines.filter((line) => !isOurs(line));
    // the blank line the installer put before its own goes with it
    const joined = kept.join('\n').replace(/\n\n+$/, '\n');
    fs.writeFileSync(file, joined === '\n' ? '' : joined);
    said.push(`Removed the system1 PATH line from ~/${name}.`);
  }
  return said;
}

module.exports = { PROFILE_MARK, addToProfiles, removeFromProfiles, pathLine };
