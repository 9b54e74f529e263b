'use strict';
const { spawnSync } = require('node:child_process');

/**
 * Runs a command-line tool found on PATH (npm, claude, systemctl). On Windows npm and an npm-installed
 * claude are .cmd shims, which Node starts only through a shell; the arguments here never hold spaces or
 * quotes, so the shell adds no meaning to them.
 * @returns {{ found: boolean, ok: boolean }}
 */
function runTool(tool, args, options = {}) {
  const result = spawnSync(tool, args, {
    cwd: options.cwd,
    stdio: options.quiet ? 'ignore' : options.stdio || 'inherit',
    shell: process.platform === 'win32',
  });
  const found = !(result.error && result.error.code === 'ENOENT');
  return { found, ok: found && result.status === 0 };
}

/** A step that failed, with what the user should know; the scripts print it and exit 1. */
class InstallError extends Error {}

/**
 * Runs a script's main step, which may be async: an InstallError becomes one line on stderr and exit code 1;
 * anything else stays an unhandled error, with its stack, as a bug should.
 */
function runScript(name, main) {
  return Promise.resolve()
    .then(main)
    .catch((error) => {
      if (!(error instanceof InstallError)) throw error;
      console.error(`${name}: ${error.message}`);
      process.exitCode = 1;
    });
}

module.exports = { runTool, InstallError, runScript };
