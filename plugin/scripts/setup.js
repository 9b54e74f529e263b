#!/usr/bin/env node
'use strict';
// What /system1:setup runs. Claude Code copies only this plugin folder into its plugin cache, so the gateway's
// sources (which the installer builds and copies) stay in the marketplace the plugin came from: a local clone
// added with `claude plugin marketplace add <clone>`, or the copy Claude Code cloned of a git marketplace.
// This finds that folder and runs its installer or uninstaller there.
//   node setup.js install [--no-setup] [--source DIR]   install or upgrade (install.sh's steps)
//   node setup.js uninstall [--purge] [--source DIR]    uninstall.sh's steps
//   node setup.js source [--source DIR]                 print the gateway's folder (its engines/ are there)
// Plain ES2017 without dependencies: it runs on whatever Node.js the user has, before anything is installed.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const PACKAGE = 'system1-gateway';
const SCRIPTS = { install: 'install.js', uninstall: 'uninstall.js' };
const pluginRoot = path.resolve(__dirname, '..');

class SetupError extends Error {}

function holdsGateway(dir) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return manifest.name === PACKAGE && fs.existsSync(path.join(dir, 'scripts', 'install.js'));
  } catch (error) {
    return false;
  }
}

/** The marketplace name in Claude Code's cache path, <plugins>/cache/<marketplace>/<plugin>/<version>. */
function marketplaceOfCache(root) {
  const parts = root.split(path.sep);
  const cache = parts.lastIndexOf('cache');
  return cache !== -1 && parts.length === cache + 4 ? parts[cache + 1] : undefined;
}

/** Claude Code's list of marketplaces, each with the folder it keeps it in (`installLocation`). */
function marketplaces() {
  const listed = spawnSync('claude', ['plugin', 'marketplace', 'list', '--json'], {
    encoding: 'utf8',
    timeout: 60000,
    shell: process.platform === 'win32',
  });
  if (listed.error || listed.status !== 0)
    return {
      why:
        listed.error && listed.error.code === 'ENOENT'
          ? 'claude is not on PATH'
          : `claude plugin marketplace list failed (${(listed.stderr || '').trim().split('\n').pop()})`,
    };
  try {
    return { list: JSON.parse(listed.stdout) };
  } catch (error) {
    return { why: 'claude plugin marketplace list --json printed no JSON' };
  }
}

/**
 * The gateway's folder: --source, else the folder this plugin sits in (a clone run in place), else the
 * marketplace it was installed from, as Claude Code lists it.
 */
function gatewaySource(explicit) {
  if (explicit) {
    if (holdsGateway(explicit)) return path.resolve(explicit);
    throw new SetupError(`${explicit} does not hold the System-1 gateway (its package.json and scripts/install.js)`);
  }
  const parent = path.dirname(pluginRoot);
  if (holdsGateway(parent)) return parent;
  const found = marketplaces();
  const name = marketplaceOfCache(pluginRoot);
  const places = (found.list || [])
    .filter((entry) => !name || entry.name === name)
    .map((entry) => entry.installLocation || entry.path);
  const source = places.find((place) => place && holdsGateway(place));
  if (source) return source;
  const why =
    found.why || `the marketplace${name ? ` ${name}` : 's'} Claude Code lists ${name ? 'does' : 'do'} not hold it`;
  throw new SetupError(
    `could not find the System-1 gateway's sources (${why}). Run \`claude plugin marketplace list\` to see where the marketplace is, then run this again with --source <that folder>, or run install.sh there`,
  );
}

function main(argv) {
  const command = argv[0];
  let explicit;
  const passed = [];
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '--source' && argv[i + 1]) explicit = argv[++i];
    else passed.push(argv[i]);
  }
  if (command !== 'source' && !SCRIPTS[command])
    throw new SetupError(`usage: setup.js install|uninstall|source [options] (got ${JSON.stringify(command || '')})`);
  const source = gatewaySource(explicit);
  if (command === 'source') return console.log(source);
  console.log(`System-1 gateway sources: ${source}`);
  const run = spawnSync(process.execPath, [path.join(source, 'scripts', SCRIPTS[command])].concat(passed), {
    stdio: 'inherit',
  });
  process.exitCode = run.status === null ? 1 : run.status;
}

try {
  main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(`setup: ${error.message}`);
  process.exitCode = 1;
}
