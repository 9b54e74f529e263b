# Starts the reranker server on 127.0.0.1 for the System-1 gateway on Windows; the steps are in start.js,
# shared with start.sh. -Model and -Port (or RERANKER_MODEL and RERANKER_PORT) override the defaults.
#   powershell -ExecutionPolicy Bypass -File "$HOME\.system1-gateway\engines\reranker\start.ps1" -Model C:\models\gte-reranker -Port 8790
param(
  [string]$Model,
  [int]$Port,
  [string]$Device
)
$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
  [Console]::Error.WriteLine("start.ps1: node is not on PATH; the gateway's Node.js 20 or later runs the reranker too")
  exit 1
}
$arguments = @()
if ($Model) { $arguments += @('--model', $Model) }
if ($Port) { $arguments += @('--port', [string]$Port) }
if ($Device) { $arguments += @('--device', $Device) }
& $node.Path (Join-Path $PSScriptRoot 'start.js') @arguments
exit $LASTEXITCODE
