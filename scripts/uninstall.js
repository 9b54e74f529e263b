#!/usr/bin/env node
'use strict';
// Removes the installed gateway, its `system1` command, its Claude Code registration and the engine's
// start-at-login entry. The config, the engines and the logs stay unless --purge is given. uninstall.sh and
// uninstall.ps1 only find Node.js and run this. What it may delete, and what it refuses, is in ./install/purge.js.
require('./install/require-node');
const fs = require('node:fs');
const path = require('node:path');
const { installDir, locateConfigFile } = require('../src/config/locations');
const { runTool, InstallError, runScript } = require('./install/tools');
const { readOptions } = require('./install/shell-options');
const { removeLoginEntries } = require('./install/login-entries');
const { removeShims } = require('./install/shim');
const { removeFromProfiles } = require('./install/profile');
const { COPIES, placesOf, checkInstallDir, checkConfig, purgeInstallDir, purgeConfig } = require('./install/purge');

/** How many of the names a purge kept it lists; a dir shared with much else would fill the screen. */
const LISTED = 8;

function unregister() {
  const removed = runTool('claude', ['mcp', 'remove', '--scope', 'user', 'system1'], { quiet: true });
  if (removed.ok) console.log('Unregistered system1 from Claude Code.');
  // Silence here would leave a registration pointing at a deleted copy, failing at every Claude Code start.
  else if (!removed.found)
    console.log(
      'Could not unregister system1 from Claude Code: claude is not on PATH. If you registered it, run: claude mcp remove --scope user system1',
    );
}

function remove(target) {
  try {
    fs.rmSync(target, { recursive: true, force: true });
  } catch (error) {
    // Windows cannot delete the files of a running program, such as laya-serve.exe
    throw new InstallError(
      `could not delete ${target} (${error.code || error.message}); stop the programs running from there (the engine, MCP clients) and run the uninstaller again`,
    );
  }
}

function listed(names) {
  if (names.length <= LISTED) return names.join(', ');
  return `${names.slice(0, LISTED).join(', ')} and ${names.length - LISTED} more`;
}

function purgeAll(dir, config) {
  const kept = purgeInstallDir(dir, remove);
  const purged = [];
  if (kept && kept.length === 0) purged.push(dir);
  if (purgeConfig(config)) purged.push(config);
  if (kept && kept.length > 0)
    console.log(`Purged the gateway's files from ${dir}; kept the dir, which also holds ${listed(kept)}.`);
  if (purged.length > 0) console.log(`Purged ${purged.join(' and ')}.`);
  if (!kept && purged.length === 0) console.log(`Nothing else to purge: there is neither ${dir} nor ${config}.`);
}

runScript('uninstall', () => {
  const { shell, purge } = readOptions(process.argv.slice(2), ['--purge']);
  const dir = installDir(process.env);
  const config = locateConfigFile(process.env).path;
  // every check before the first deletion (or unregistering), so that a refusal leaves everything as it was
  checkInstallDir(dir, placesOf(process.env), { purge });
  if (purge) checkConfig(config);
  unregister();
  for (const entry of removeLoginEntries(process.platform, process.env))
    console.log(`Removed the engine's start-at-login entry ${entry}.`);
  for (const line of removeShims({ env: process.env, dir })) console.log(line);
  for (const line of removeFromProfiles(process.env)) console.log(line);
  for (const copy of COPIES) remove(path.join(dir, copy));
  console.log(`Removed ${path.join(dir, 'app')}.`);
  if (!purge) {
    const option = shell === 'powershell' ? '-Purge' : '--purge';
    return console.log(`Kept the config, engines and logs (${option} deletes them).`);
  }
  purgeAll(dir, config);
});
