#!/bin/sh
# Removes the installed gateway, its Claude Code registration, the engine's start-at-login entry and the PATH
# line the installer added to the shell's profiles; the config, engines and logs stay unless --purge is given.
# The steps are in scripts/uninstall.js, shared with uninstall.ps1.
set -eu
if ! command -v node >/dev/null 2>&1; then
  echo "uninstall.sh: node is not on PATH; the uninstaller runs on the gateway's Node.js 20 or later" >&2
  exit 1
fi
exec node "$(dirname "$0")/scripts/uninstall.js" "$@"
