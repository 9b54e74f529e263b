# Starts laya-serve on 127.0.0.1 for the System-1 gateway on Windows; the steps are in start.js, shared with
# start.sh. -Model and -Port (or LAYA_MODELS and LAYA_PORT) override the defaults.
#   powershell -ExecutionPolicy Bypass -File "$HOME\.system1-gateway\engines\laya\start.ps1" -Model typed-decisions -Port 8765
param(
  [string]$Model,
  [int]$Port
)
$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
  [Console]::Error.WriteLine("start.ps1: node is not on PATH; the gateway's Node.js 20 or later starts the engine too")
  exit 1
}
$arguments = @()
if ($Model) { $arguments += @('--model', $Model) }
if ($Port) { $arguments += @('--port', [string]$Port) }
& $node.Path (Join-Path $PSScriptRoot 'start.js') @arguments
exit $LASTEXITCODE
