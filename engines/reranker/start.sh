#!/bin/sh
# Starts the reranker server on 127.0.0.1 for the System-1 gateway; the steps are in start.js, shared with
# start.ps1. RERANKER_MODEL and RERANKER_PORT (or --model DIR and --port N) override the defaults.
set -eu
if ! command -v node >/dev/null 2>&1; then
  echo "start.sh: node is not on PATH; the gateway's Node.js 20 or later runs the reranker too" >&2
  exit 1
fi
exec node "$(dirname "$0")/start.js" "$@"
