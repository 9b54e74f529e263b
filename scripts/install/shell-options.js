'use strict';
const { InstallError } = require('./tools');

/**
 * The options the wrappers pass: `--shell powershell` from the .ps1 scripts, so the printed commands suit
 * the shell the user typed into, `--purge` for the uninstaller, `--no-setup` for an installer run by a
 * script (no engine probes, the config left as created), and `--no-modify-path` to leave the shell's profiles
 * alone (the installer then prints the PATH line instead of adding it). Anything else is an error naming it.
 */
function readOptions(argv, allowed) {
  const options = { shell: 'sh', purge: false, setup: true, modifyPath: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--shell' && ['sh', 'powershell'].includes(argv[i + 1])) options.shell = argv[++i];
    else if (arg === '--purge' && allowed.includes('--purge')) options.purge = true;
    else if (arg === '--no-setup' && allowed.includes('--no-setup')) options.setup = false;
    else if (arg === '--no-modify-path' && allowed.includes('--no-modify-path')) options.modifyPath = false;
    else throw new InstallError(`unknown option ${JSON.stringify(arg)} (it takes ${allowed.join(', ') || 'none'})`);
  }
  return options;
}

/**
 * `value` as one word with nothing expanded, for the shell the printed commands are typed into (and that
 * /system1:setup runs verbatim): a path can hold `$(...)`, backquotes or quotes. Inside single quotes neither
 * sh nor PowerShell expands anything, so only the quote itself needs escaping: sh closes the quotes around an
 * escaped one ('\''), PowerShell doubles it, and it also takes the typographic single quotes for quotes.
 */
function quoteFor(shell, value) {
  if (shell === 'powershell') return `'${value.replace(/['\u2018\u2019\u201A\u201B]/g, '$&$&')}'`;
  return `'${value.replace(/'/g, "'\\''")}'`;
}

module.exports = { readOptions, quoteFor };
