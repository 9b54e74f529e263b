# Installs (or upgrades) the System-1 gateway on Windows into $env:SYSTEM1_INSTALL_DIR or
# ~\.system1-gateway, puts a system1 command on PATH, chooses an engine this machine has (unless -NoSetup) and
# prints the command that registers it with Claude Code. The steps are in scripts\install.js, shared with
# install.sh; this only finds Node.js (the script checks for 20 or later).
#   powershell -ExecutionPolicy Bypass -File .\install.ps1 [-NoSetup]
param(
  [switch]$NoSetup
)
$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
  [Console]::Error.WriteLine('install.ps1: Node.js 20 or later is needed and node is not on PATH (https://nodejs.org)')
  exit 1
}
$arguments = @('--shell', 'powershell')
if ($NoSetup) { $arguments += '--no-setup' }
& $node.Path (Join-Path $PSScriptRoot 'scripts\install.js') @arguments
exit $LASTEXITCODE
