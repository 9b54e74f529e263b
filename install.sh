#!/bin/sh
# Installs (or upgrades) the System-1 gateway into ${SYSTEM1_INSTALL_DIR:-~/.system1-gateway}/app, puts a
# system1 command on PATH (adding its folder to the shell's profile when it is not on PATH, unless
# --no-modify-path), chooses an engine this machine has (unless --no-setup, for scripted installs) and
# prints the command that registers it with Claude Code. The steps are in scripts/install.js, shared with
# install.ps1; this only finds Node.js (the script itself checks for version 20 or later).
set -eu
if ! command -v node >/dev/null 2>&1; then
  echo "install.sh: Node.js 20 or later is needed and node is not on PATH (https://nodejs.org)" >&2
  exit 1
fi
exec node "$(dirname "$0")/scripts/install.js" "$@"
