#!/bin/sh
# Runs a system1 hook command from the installed copy (install.sh puts it in the install dir). Hooks must
# never get in the way: without an installed copy, or on any failure, this exits 0 and prints nothing,
# except that the session-start check says once where to begin.
app="${SYSTEM1_INSTALL_DIR:-$HOME/.system1-gateway}/app/dist/main.js"
if [ ! -f "$app" ] || ! command -v node >/dev/null 2>&1; then
  cat >/dev/null 2>&1 || true # read the hook input Claude Code sends, so its write never fails
  if [ "$1" = "session-check" ]; then
    echo "System-1 is not installed yet: run /system1:setup to install it."
  fi
  exit 0
fi
node "$app" "$@" 2>/dev/null
exit 0
