@echo off
rem Windows start-at-login entry for the Laya engine: copy to
rem   %APPDATA%\Microsoft\Windows\Start Menu\Programs\Startup\system1-laya.cmd
rem uninstall.ps1 removes it again.
powershell -NoProfile -ExecutionPolicy Bypass -WindowStyle Hidden -File "%USERPROFILE%\.system1-gateway\engines\laya\start.ps1"
