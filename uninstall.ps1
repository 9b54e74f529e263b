# Removes the installed gateway, its Claude Code registration and the engine's start-at-login entry on Windows;
# the config, engines and logs stay unless -Purge is given. The steps are in scripts\uninstall.js, shared with
# uninstall.sh. Stop the engine before -Purge: Windows cannot delete a running laya-serve.exe.
#   powershell -ExecutionPolicy Bypass -File .\uninstall.ps1 [-Purge]
param(
  [switch]$Purge
)
$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
  [Console]::Error.WriteLine("uninstall.ps1: node is not on PATH; the uninstaller runs on the gateway's Node.js 20 or later")
  exit 1
}
$arguments = @('--shell', 'powershell')
if ($Purge) { $arguments += '--purge' }
& $node.Path (Join-Path $PSScriptRoot 'scripts\uninstall.js') @arguments
exit $LASTEXITCODE
