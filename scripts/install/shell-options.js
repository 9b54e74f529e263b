'use strict';
const { InstallError } = require('./tools');

/**
 * The options the wrappers pass: `--shell powershell` from the .ps1 scripts, so the printed commands suit
 * the shell the user typed into, and `--purge` for the uninstaller. Anything else is an error naming it.
 */
function readOptions(argv, allowed) {
  const options = { shell: 'sh', purge: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--shell' && ['sh', 'powershell'].includes(argv[i + 1])) options.shell = argv[++i];
    else if (arg === '--purge' && allowed.includes('--purge')) options.purge = true;
    else throw new InstallError(`unknown option ${JSON.stringify(arg)} (it takes ${allowed.join(', ') || 'none'})`);
  }
  return options;
}

module.exports = { readOptions };
