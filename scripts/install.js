#!/usr/bin/env node
'use strict';
// Installs (or upgrades) the System-1 gateway into <install dir>/app, so the installed copy does not depend on
// this clone; creates the user config from config.example.toml when there is none; puts a `system1` command on
// PATH; unless --no-setup, chooses an engine this machine has when the user has not and runs the smoke check;
// prints the command that registers the server with Claude Code. install.sh and install.ps1 only find Node.js
// and run this, so every platform takes the same steps. Re-run it to upgrade.
require('./install/require-node');
const fs = require('node:fs');
const path = require('node:path');
const { installDir, locateConfigFile } = require('../src/config/locations');
const { runTool, InstallError, runScript } = require('./install/tools');
const { isBuildCurrent } = require('./build-stamp');
const { readOptions, quoteFor } = require('./install/shell-options');
const { placesOf, installDirRefusal } = require('./install/purge');
const { unloadablePathRefusal } = require('./install/loadable-path');
const { installShim } = require('./install/shim');
const { setup } = require('./install/setup');

const repo = path.resolve(__dirname, '..');
/**
 * What the installed copy needs at run time; its dependencies are installed from the lockfile. The reranker
 * engine's own files go too (its package.json "files": no node_modules, models or logs), installed nowhere
 * at install: `system1 engine pull reranker` copies them to <install dir>/engines/reranker and runs npm ci there.
 */
const SHIPPED = [
  'package.json',
  'package-lock.json',
  'dist',
  'schema',
  'calibration',
  'routing',
  'config.example.toml',
].concat(
  ['package.json', 'package-lock.json']
    .concat(require('../engines/reranker/package.json').files)
    .map((file) => path.join('engines', 'reranker', file)),
);

function npm(args, cwd, what) {
  const result = runTool('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    stdio: ['ignore', what.quiet ? 'ignore' : 'inherit', 'inherit'],
  });
  if (!result.found) throw new InstallError('npm is not on PATH; it comes with Node.js (https://nodejs.org)');
  if (!result.ok) throw new InstallError(`${what.step} failed (npm ${args.join(' ')} in ${cwd}); its output is above`);
}

/** Builds the clone unless dist/ is a finished build of its current sources (the build's own stamp says). */
function buildIfNeeded() {
  if (isBuildCurrent(repo)) return;
  const stale = fs.existsSync(path.join(repo, 'dist', 'main.js'));
  console.log(
    stale
      ? `The build in ${repo} is older than its sources: building it again ...`
      : `Building the gateway in ${repo} ...`,
  );
  // npm ci runs the package's prepare step, which builds (scripts/prepare.js); a clone with its tools builds directly.
  if (!fs.existsSync(path.join(repo, 'node_modules', 'typescript')))
    npm(['ci'], repo, { step: 'installing the build tools' });
  if (!isBuildCurrent(repo)) npm(['run', 'build'], repo, { step: 'the build' });
}

/**
 * Throws, naming the reason, unless `dir` can be the gateway's install dir: installApp deletes app.new and
 * app.old there and swaps app, so another program's folder of that name must stop it before anything moves,
 * and a path Node.js cannot load packages from must stop it before a copy that cannot start is made.
 */
function checkInstallDir(dir) {
  const why = unloadablePathRefusal(dir) || installDirRefusal(dir, placesOf(process.env));
  if (!why) return;
  throw new InstallError(
    `refusing to install into ${dir}: ${why}. Set SYSTEM1_INSTALL_DIR to a dir of the gateway's own (unset, it is ~/.system1-gateway); nothing was changed`,
  );
}

/** Stages the new copy beside the old one and swaps at the end, so a failed upgrade leaves the old one working. */
function installApp(dir) {
  checkInstallDir(dir);
  const app = path.join(dir, 'app');
  const stage = path.join(dir, 'app.new');
  const old = path.join(dir, 'app.old');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.rmSync(old, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const item of SHIPPED) fs.cpSync(path.join(repo, item), path.join(stage, item), { recursive: true });
  console.log(`Installing the runtime dependencies into ${app} ...`);
  try {
    // --prefer-offline: the lockfile pins every version, so npm's cache answers an upgrade without the network
    npm(['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline'], stage, {
      step: 'installing the runtime dependencies',
      quiet: true,
    });
  } catch (error) {
    fs.rmSync(stage, { recursive: true, force: true });
    throw error;
  }
  try {
    if (fs.existsSync(app)) fs.renameSync(app, old);
    fs.renameSync(stage, app);
  } catch (error) {
    throw new InstallError(
      `could not replace ${app} (${error.code || error.message}); close the programs running the gateway from there (Claude Code, MCP clients) and run the installer again`,
    );
  }
  fs.rmSync(old, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  return app;
}

/** @returns {{ config: string, created: boolean }} */
function createConfigIfMissing() {
  const config = locateConfigFile(process.env).path;
  if (fs.existsSync(config)) {
    console.log(`Kept the config ${config}.`);
    return { config, created: false };
  }
  fs.mkdirSync(path.dirname(config), { recursive: true });
  fs.copyFileSync(path.join(repo, 'config.example.toml'), config);
  console.log(`Created the config ${config} (every key commented out: the defaults apply).`);
  return { config, created: true };
}

/** The commands are for copying into the user's shell, so the path in them is quoted for that shell. */
function printNextSteps(app, shell) {
  const main = quoteFor(shell, path.join(app, 'dist', 'main.js'));
  const version = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).version;
  // PowerShell swallows a bare `--` on its way to the npm claude.ps1 shim, so there it is quoted
  const separator = shell === 'powershell' ? "'--'" : '--';
  console.log(`
Installed System-1 gateway ${version} in ${app}.
Register it with Claude Code (user scope):
  claude mcp add --scope user --transport stdio system1 ${separator} node ${main} mcp
Check it:
  node ${main} smoke`);
}

runScript('install', async () => {
  const options = readOptions(process.argv.slice(2), ['--no-setup', '--no-modify-path']);
  const dir = installDir(process.env);
  // before the build too, which may take minutes: a refusal is better early
  checkInstallDir(dir);
  buildIfNeeded();
  const app = installApp(dir);
  const { config, created } = createConfigIfMissing();
  const shim = { env: process.env, dir, shell: options.shell, modifyPath: options.modifyPath };
  console.log(installShim(path.join(app, 'dist', 'main.js'), shim));
  if (options.setup) await setup({ app, dir, env: process.env, config, created });
  printNextSteps(app, options.shell);
});
