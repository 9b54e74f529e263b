@echo off
rem Windows start-at-login entry for the reranker engine: copy to
rem   %APPDATA%\Microsoft\Windows\Start Menu\Programs\Startup\system1-reranker.cmd
rem It serves the model in %USERPROFILE%\.system1-gateway\engines\reranker\model.
powershell -NoProfile -ExecutionPolicy Bypass -WindowStyle Hidden -File "%USERPROFILE%\.system1-gateway\engines\reranker\start.ps1"
