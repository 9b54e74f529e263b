'use strict';
// Keeps to ES2017 syntax, as the scripts that load it do (see require-node.js): `catch (error)` though unused.
// What uninstall may delete. SYSTEM1_INSTALL_DIR and SYSTEM1_CONFIG can name any place (`~`, `.`, ~/.config), so
// it deletes the gateway's own entries in the install dir by name and never the dir's other contents, deletes
// the config only when it is a file, and checks all of this before it deletes anything: a refusal leaves
// everything as it was.
const fs = require('node:fs');
const path = require('node:path');
const { homeOf } = require('../../src/config/locations');
const { InstallError } = require('./tools');

const PACKAGE = 'system1-gateway';
/** The copies of the gateway install.js makes: app.new while it stages one, app.old while it swaps. */
const COPIES = ['app', 'app.new', 'app.old'];
/** Everything the gateway puts in its install dir: the copies, and what it writes as it runs. */
const ENTRIES = [...COPIES, 'engines', 'logs', 'calibration.json', 'paused', 'cooldown.json'];
/** CooldownFile stages each write as cooldown.json.<pid>; a hook killed mid-write leaves one behind. */
const STAGED_COOLDOWN = /^cooldown\.json\.\d+$/;

function isEntry(name) {
  return ENTRIES.includes(name) || STAGED_COOLDOWN.test(name);
}

/** The stat of `target`, or undefined when there is nothing there. */
function statOf(target) {
  try {
    return fs.statSync(target);
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw new InstallError(`could not read ${target} (${error.code || error.message}); nothing was deleted`);
  }
}

/** The path with its links resolved, so that a link to the home directory counts as the home directory. */
function realOf(target) {
  try {
    return fs.realpathSync.native(target);
  } catch (error) {
    return path.resolve(target);
  }
}

/** The places an install dir must not be, nor hold: the user's home and the dir the uninstaller runs in. */
function placesOf(env) {
  return { home: realOf(homeOf(env)), cwd: realOf(process.cwd()) };
}

function holds(dir, inner, pathApi) {
  const relative = pathApi.relative(dir, inner);
  return relative !== '..' && !relative.startsWith(`..${pathApi.sep}`) && !pathApi.isAbsolute(relative);
}

/**
 * Why `dir` cannot be an install dir, from where it is, or undefined. A root, a home or the dir the user works
 * in has entries of its own named app or logs too often for the gateway's to be told apart by name.
 * @param {{ home: string, cwd: string }} places
 * @param {typeof path} [pathApi] path.win32 lets the tests check Windows paths anywhere
 */
function placeRefusal(dir, places, pathApi = path) {
  const resolved = pathApi.resolve(dir);
  if (pathApi.parse(resolved).root === resolved) return 'it is a filesystem root';
  for (const [place, name] of [
    [places.home, 'your home directory'],
    [places.cwd, 'the current directory'],
  ]) {
    // relative() and not ===, since on Windows it ignores case as the file system does
    if (pathApi.relative(resolved, place) === '') return `it is ${name}`;
    if (holds(resolved, place, pathApi)) return `it holds ${name}`;
  }
  return undefined;
}

/** install.js copies package.json first, so a copy without it is at most an empty dir it was about to fill. */
function isGatewayCopy(copy) {
  try {
    if (fs.readdirSync(copy).length === 0) return true;
    return JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8')).name === PACKAGE;
  } catch (error) {
    return false;
  }
}

/** Why the contents of `dir` say it is not an install dir, or undefined (also when there is no `dir`). */
function contentRefusal(dir, purge) {
  const stat = statOf(dir);
  if (!stat) return undefined;
  if (!stat.isDirectory()) return 'it is not a directory';
  const names = fs.readdirSync(dir);
  // an app/ of some other program is exactly what a project named by SYSTEM1_INSTALL_DIR=. would have
  const foreign = COPIES.find((copy) => names.includes(copy) && !isGatewayCopy(path.join(dir, copy)));
  if (foreign)
    return `${path.join(dir, foreign)} is not a copy of the gateway (its package.json does not name ${PACKAGE})`;
  if (purge && !names.some(isEntry)) return `it holds none of the gateway's files (${ENTRIES.join(', ')})`;
  return undefined;
}

/**
 * Why `dir` cannot be the gateway's install dir, from where it is or what it holds, or undefined. The one rule
 * for both scripts: install.js swaps and deletes the same copies uninstall.js deletes.
 */
function installDirRefusal(dir, places, { purge = false } = {}) {
  return placeRefusal(realOf(dir), places) || contentRefusal(dir, purge);
}

/** Throws, naming the reason, unless uninstall may delete the gateway's entries from `dir`. */
function checkInstallDir(dir, places, { purge }) {
  const why = installDirRefusal(dir, places, { purge });
  if (!why) return;
  throw new InstallError(
    `${dir} does not look like the gateway's install dir: ${why}. Set SYSTEM1_INSTALL_DIR to the dir the gateway was installed into (unset, it is ~/.system1-gateway); nothing was deleted`,
  );
}

/** Throws unless `config` is a file (or a link to one, which goes while the file it points at stays) or absent. */
function checkConfig(config) {
  const stat = statOf(config);
  if (!stat || stat.isFile()) return;
  const kind = stat.isDirectory() ? 'a directory' : 'not a regular file';
  throw new InstallError(
    `refusing to delete the config ${config}: it is ${kind}, not a file. SYSTEM1_CONFIG names the config file itself; nothing was deleted`,
  );
}

/**
 * Deletes the gateway's entries from a checked `dir`, and then `dir` itself if that left it empty.
 * @param {(target: string) => void} remove
 * @returns {string[] | undefined} the names it kept, undefined when there was no `dir`
 */
function purgeInstallDir(dir, remove) {
  if (!statOf(dir)) return undefined;
  const names = fs.readdirSync(dir);
  for (const name of names.filter(isEntry)) remove(path.join(dir, name));
  const kept = names.filter((name) => !isEntry(name)).sort();
  if (kept.length === 0) fs.rmdirSync(dir);
  return kept;
}

/** Deletes a checked config; false when there was none. unlink, not rm: it cannot take a directory with it. */
function purgeConfig(config) {
  if (!statOf(config)) return false;
  try {
    fs.unlinkSync(config);
  } catch (error) {
    throw new InstallError(`could not delete ${config} (${error.code || error.message})`);
  }
  return true;
}

module.exports = {
  COPIES,
  placesOf,
  placeRefusal,
  installDirRefusal,
  checkInstallDir,
  checkConfig,
  purgeInstallDir,
  purgeConfig,
};
