#!/bin/sh
# Removes the installed gateway and its Claude Code registration. The config, engines and logs stay unless
# --purge is given.
set -eu
dir="${SYSTEM1_INSTALL_DIR:-$HOME/.system1-gateway}"
purge=false
[ "${1:-}" = "--purge" ] && purge=true

if command -v claude >/dev/null 2>&1; then
  claude mcp remove --scope user system1 >/dev/null 2>&1 && echo "Unregistered system1 from Claude Code." || true
fi
rm -rf "$dir/app" "$dir/app.new"
echo "Removed $dir/app."

if [ "$purge" = true ]; then
  config="${SYSTEM1_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/system1/config.toml}"
  rm -f "$config"
  rm -rf "$dir"
  echo "Purged $dir and $config."
else
  echo "Kept the config, engines and logs (uninstall.sh --purge deletes them)."
fi
