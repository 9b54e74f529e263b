// @ts-check
'use strict';
/**
 * Where the gateway keeps its files: the install dir and the user's config. The one rule for both, shared by
 * the gateway (through paths.ts) and by the install scripts, which run from a clone before any build; that is
 * why this file is plain CommonJS that any Node.js can load.
 */
const os = require('os');
const path = require('path');

/** @typedef {Readonly<Record<string, string | undefined>>} Env */
/** @typedef {{ path: string, explicit: boolean }} ConfigLocation `explicit`: the user named it, so a missing file is an error */

/**
 * The user's home as the environment gives it (tests and sandboxes set HOME), else the OS account's.
 * @param {Env} env
 * @returns {string}
 */
function homeOf(env) {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/**
 * Expands a leading `~` the way a shell would, since TOML values and env vars arrive unexpanded.
 * @param {string} value
 * @param {string} home
 * @returns {string}
 */
function expandHome(value, home) {
  if (value === '~') return home;
  if (value.startsWith('~/') || value.startsWith('~\\')) return path.join(home, value.slice(2));
  return value;
}

/**
 * Where the config file is looked for.
 * @param {Env} env
 * @param {NodeJS.Platform} [platform]
 * @returns {ConfigLocation}
 */
function locateConfigFile(env, platform = process.platform) {
  if (env.SYSTEM1_CONFIG) return { path: expandHome(env.SYSTEM1_CONFIG, homeOf(env)), explicit: true };
  if (platform === 'win32' && env.APPDATA) {
    return { path: path.join(env.APPDATA, 'system1', 'config.toml'), explicit: false };
  }
  const base = env.XDG_CONFIG_HOME || path.join(homeOf(env), '.config');
  return { path: path.join(base, 'system1', 'config.toml'), explicit: false };
}

/**
 * The install dir holds the installed copy (app/), the engines, the pause file, the user's calibration.json
 * and the routing log.
 * @param {Env} env
 * @returns {string}
 */
function installDir(env) {
  if (env.SYSTEM1_INSTALL_DIR) return path.resolve(expandHome(env.SYSTEM1_INSTALL_DIR, homeOf(env)));
  return path.join(homeOf(env), '.system1-gateway');
}

module.exports = { homeOf, expandHome, locateConfigFile, installDir };
