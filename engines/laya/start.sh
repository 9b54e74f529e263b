#!/bin/sh
# Starts laya-serve on 127.0.0.1 for the System-1 gateway; the steps are in start.js, shared with start.ps1.
# LAYA_MODELS and LAYA_PORT (or --model NAME and --port N) override the defaults.
set -eu
if ! command -v node >/dev/null 2>&1; then
  echo "start.sh: node is not on PATH; the gateway's Node.js 20 or later starts the engine too" >&2
  exit 1
fi
exec node "$(dirname "$0")/start.js" "$@"
