#!/bin/sh
# Starts laya-serve for the System-1 gateway: on 127.0.0.1 only (laya-serve's own default is 0.0.0.0),
# preloading the pinned checkpoint, logging to laya-serve.log next to this script, and doing nothing when
# the port is already taken (an engine is probably running). LAYA_MODELS and LAYA_PORT override the defaults.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
port="${LAYA_PORT:-8765}"
models="${LAYA_MODELS:-typed-decisions}"

if node -e "const s=require('net').connect($port,'127.0.0.1');s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1))" 2>/dev/null; then
  echo "Port $port on 127.0.0.1 is already in use: leaving the running engine alone."
  exit 0
fi

serve="$here/venv/bin/laya-serve"
[ -x "$serve" ] || serve=$(command -v laya-serve || true)
if [ -z "$serve" ]; then
  echo "laya-serve is not installed: /system1:choose-model installs it into $here/venv (pip install laya)." >&2
  exit 1
fi

# CUDA or MPS when the machine has them, the CPU otherwise (laya-serve picks the device itself).
LAYA_HOST=127.0.0.1 LAYA_PORT="$port" LAYA_MODELS="$models" LAYA_PRELOAD=1 \
  nohup "$serve" >>"$here/laya-serve.log" 2>&1 &
echo "laya-serve starting on http://127.0.0.1:$port (checkpoints: $models); log: $here/laya-serve.log"
