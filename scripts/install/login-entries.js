'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { homeOf } = require('../../src/config/locations');
const { runTool } = require('./tools');

/** The engines with start-at-login templates in engines/<name> (system1-<name>.service, .cmd, com.system1.<name>.plist). */
const ENGINES = ['laya', 'reranker'];

/**
 * The start-at-login entry /system1:choose-model may have made for an engine, from the templates in
 * engines/<engine>: one per platform, each in the place that platform reads at login.
 */
function loginEntryFor(platform, env, engine = 'laya') {
  const home = homeOf(env);
  if (platform === 'win32') {
    const appData = env.APPDATA || path.join(home, 'AppData', 'Roaming');
    return {
      file: path.join(appData, 'Microsoft', 'Windows', 'Start Menu', 'Programs', 'Startup', `system1-${engine}.cmd`),
    };
  }
  if (platform === 'darwin') {
    const file = path.join(home, 'Library', 'LaunchAgents', `com.system1.${engine}.plist`);
    return { file, unregister: ['launchctl', ['unload', file]] };
  }
  const configHome = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return {
    file: path.join(configHome, 'systemd', 'user', `system1-${engine}.service`),
    unregister: ['systemctl', ['--user', 'disable', `system1-${engine}`]],
  };
}

/**
 * Removes every engine's entry, first telling the service manager (which also drops its enable link), so
 * nothing is left pointing at an engine that may be gone. A running engine keeps running: stopping it is the
 * user's call.
 * @returns {string[]} the files removed
 */
function removeLoginEntries(platform, env) {
  const removed = [];
  for (const engine of ENGINES) {
    const entry = loginEntryFor(platform, env, engine);
    if (!fs.existsSync(entry.file)) continue;
    if (entry.unregister) runTool(entry.unregister[0], entry.unregister[1], { quiet: true });
    fs.rmSync(entry.file, { force: true });
    removed.push(entry.file);
  }
  return removed;
}

module.exports = { ENGINES, loginEntryFor, removeLoginEntries };
