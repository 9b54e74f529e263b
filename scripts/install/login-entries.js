'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { homeOf } = require('../../src/config/locations');
const { runTool } = require('./tools');

/**
 * The start-at-login entries /system1:choose-model may have made for the Laya engine, from the templates in
 * engines/laya: one per platform, each in the place that platform reads at login.
 */
function loginEntryFor(platform, env) {
  const home = homeOf(env);
  if (platform === 'win32') {
    const appData = env.APPDATA || path.join(home, 'AppData', 'Roaming');
    return { file: path.join(appData, 'Microsoft', 'Windows', 'Start Menu', 'Programs', 'Startup', 'system1-laya.cmd') };
  }
  if (platform === 'darwin') {
    const file = path.join(home, 'Library', 'LaunchAgents', 'com.system1.laya.plist');
    return { file, unregister: ['launchctl', ['unload', file]] };
  }
  const configHome = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return {
    file: path.join(configHome, 'systemd', 'user', 'system1-laya.service'),
    unregister: ['systemctl', ['--user', 'disable', 'system1-laya']],
  };
}

/**
 * Removes the entry, first telling the service manager (which also drops its enable link), so nothing is left
 * pointing at an engine that may be gone. A running engine keeps running: stopping it is the user's call.
 * @returns {string | undefined} the file removed
 */
function removeLoginEntry(platform, env) {
  const entry = loginEntryFor(platform, env);
  if (!fs.existsSync(entry.file)) return undefined;
  if (entry.unregister) runTool(entry.unregister[0], entry.unregister[1], { quiet: true });
  fs.rmSync(entry.file, { force: true });
  return entry.file;
}

module.exports = { loginEntryFor, removeLoginEntry };
