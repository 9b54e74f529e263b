#!/usr/bin/env node
'use strict';
// Removes the installed gateway, its Claude Code registration and the engine's start-at-login entry. The config,
// the engines and the logs stay unless --purge is given. uninstall.sh and uninstall.ps1 only find Node.js and
// run this.
require('./install/require-node');
const fs = require('node:fs');
const path = require('node:path');
const { installDir, locateConfigFile } = require('../src/config/locations');
const { runTool, InstallError, runScript } = require('./install/tools');
const { readOptions } = require('./install/shell-options');
const { removeLoginEntry } = require('./install/login-entries');

function unregister() {
  const removed = runTool('claude', ['mcp', 'remove', '--scope', 'user', 'system1'], { quiet: true });
  if (removed.ok) console.log('Unregistered system1 from Claude Code.');
}

function remove(target) {
  try {
    fs.rmSync(target, { recursive: true, force: true });
  } catch (error) {
    // Windows cannot delete the files of a running program, such as laya-serve.exe
    throw new InstallError(`could not delete ${target} (${error.code || error.message}); stop the programs running from there (the engine, MCP clients) and run the uninstaller again`);
  }
}

runScript('uninstall', () => {
  const { shell, purge } = readOptions(process.argv.slice(2), ['--purge']);
  const dir = installDir(process.env);
  unregister();
  const entry = removeLoginEntry(process.platform, process.env);
  if (entry) console.log(`Removed the engine's start-at-login entry ${entry}.`);
  for (const copy of ['app', 'app.new', 'app.old']) remove(path.join(dir, copy));
  console.log(`Removed ${path.join(dir, 'app')}.`);
  if (!purge) {
    const option = shell === 'powershell' ? '-Purge' : '--purge';
    return console.log(`Kept the config, engines and logs (${option} deletes them).`);
  }
  const config = locateConfigFile(process.env).path;
  remove(config);
  remove(dir);
  console.log(`Purged ${dir} and ${config}.`);
});
