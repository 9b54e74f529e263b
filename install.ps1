# Installs (or upgrades) the System-1 gateway on Windows into $env:SYSTEM1_INSTALL_DIR or
# ~\.system1-gateway, and prints the command that registers it with Claude Code. The steps are in
# scripts\install.js, shared with install.sh; this only finds Node.js (the script checks for 20 or later).
#   powershell -ExecutionPolicy Bypass -File .\install.ps1
$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
  [Console]::Error.WriteLine('install.ps1: Node.js 20 or later is needed and node is not on PATH (https://nodejs.org)')
  exit 1
}
& $node.Path (Join-Path $PSScriptRoot 'scripts\install.js') --shell powershell
exit $LASTEXITCODE
