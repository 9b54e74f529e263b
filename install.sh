#!/bin/sh
# Installs (or upgrades) the System-1 gateway into ${SYSTEM1_INSTALL_DIR:-~/.system1-gateway}/app, so the
# installed copy does not depend on this clone; creates the user config from config.example.toml when there
# is none; prints the command that registers the server with Claude Code. Re-run it to upgrade.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir="${SYSTEM1_INSTALL_DIR:-$HOME/.system1-gateway}"

if ! command -v node >/dev/null 2>&1; then
  echo "install.sh: Node.js 20 or later is needed and node is not on PATH (https://nodejs.org)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "install.sh: Node.js 20 or later is needed; this is $(node --version)" >&2
  exit 1
fi

if [ ! -f "$here/dist/main.js" ]; then
  echo "Building the gateway in $here ..."
  (cd "$here" && npm ci --no-audit --no-fund && npm run build)
fi

# Stage the new copy beside the old one and swap at the end, so a failed upgrade leaves the old one working.
stage="$dir/app.new"
rm -rf "$stage"
mkdir -p "$stage"
for item in package.json package-lock.json dist schema calibration routing config.example.toml; do
  cp -R "$here/$item" "$stage/"
done
echo "Installing the runtime dependencies into $dir/app ..."
(cd "$stage" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
rm -rf "$dir/app"
mv "$stage" "$dir/app"
mkdir -p "$dir/logs"

config="${SYSTEM1_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/system1/config.toml}"
if [ ! -f "$config" ]; then
  mkdir -p "$(dirname "$config")"
  cp "$here/config.example.toml" "$config"
  echo "Created the config $config (every key commented out: the defaults apply)."
else
  echo "Kept the config $config."
fi

main="$dir/app/dist/main.js"
echo
echo "Installed System-1 gateway $(node -p "require('$dir/app/package.json').version") in $dir/app."
echo "Register it with Claude Code (user scope):"
echo "  claude mcp add --scope user --transport stdio system1 -- node \"$main\" mcp"
echo "Check it:"
echo "  node \"$main\" smoke"
