'use strict';
// Keeps to ES2017 syntax, as the scripts that load it do (see require-node.js).
const fs = require('node:fs');
const path = require('node:path');

/**
 * Why Node.js could not load the gateway's packages from `dir`, or undefined. It resolves a package's
 * "exports" through a file URL of its path: a backslash there (outside Windows, where it is the separator)
 * is refused as an encoded separator (ERR_INVALID_MODULE_SPECIFIER), and a * is taken for the exports
 * pattern's wildcard (Cannot find module). The copy installed there would never start, whatever the shim.
 * Both the path as named and the one its links lead to count: Node loads from the latter.
 */
function unloadablePathRefusal(dir, platform = process.platform) {
  const characters = platform === 'win32' ? ['*'] : ['\\', '*'];
  for (const place of [path.resolve(dir), realOf(dir)]) {
    const found = characters.find((character) => place.includes(character));
    if (found)
      return `its path has a "${found}", and Node.js cannot load packages from such a folder (the installed gateway would not start)`;
  }
  return undefined;
}

function realOf(dir) {
  try {
    return fs.realpathSync.native(dir);
  } catch (error) {
    return path.resolve(dir);
  }
}

module.exports = { unloadablePathRefusal };
