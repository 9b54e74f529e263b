#!/bin/sh
# The plugin and install scripts with real clients, in a throwaway HOME: install.sh, registration with
# Claude Code at user scope, `claude mcp list` (it starts the server and checks the connection), the hook
# commands with the stdin Claude Code sends, then uninstall.sh. Needs Claude Code's CLI: pass its path as $1
# (npm install @anthropic-ai/claude-code@2.1.197 somewhere; CI does not run this), and optionally MCP
# Inspector's CLI as $2 (npm install @modelcontextprotocol/inspector) for tools/list and one tools/call.
set -eu
claude="${1:?usage: test/plugin/check-install.sh /path/to/claude [/path/to/mcp-inspector]}"
inspector="${2:-}"
repo=$(cd "$(dirname "$0")/../.." && pwd)
export HOME=$(mktemp -d /tmp/system1-plugin-XXXXXX)
# uninstall.sh unregisters through `claude` on PATH, as a user has it
export PATH="$(dirname "$claude"):$PATH"
unset SYSTEM1_INSTALL_DIR SYSTEM1_CONFIG XDG_CONFIG_HOME || true
main="$HOME/.system1-gateway/app/dist/main.js"
step() { printf '\n== %s\n' "$*"; }

step "claude plugin validate: the marketplace, then the plugin (plugin/) and its manifest"
"$claude" plugin validate "$repo"
"$claude" plugin validate "$repo/plugin"
"$claude" plugin validate "$repo/plugin/.claude-plugin/plugin.json"

step "install.sh (its last lines: the smoke verdict of the engine it chose, and the registration)"
sh "$repo/install.sh" | tail -12
test -f "$main"

step "claude mcp add --scope user, then claude mcp list"
"$claude" mcp add --scope user --transport stdio system1 -- node "$main" mcp
"$claude" mcp list | tee "$HOME/list.txt"
grep -q "system1.*Connected" "$HOME/list.txt"

step "a decision through the installed copy (mock provider)"
SYSTEM1_PROVIDER=mock node "$main" smoke --question "Rerun the flaky pipeline or block the merge?" --options "rerun the pipeline" "block the merge" | grep -E "PASS|FAIL"

if [ -n "$inspector" ]; then
  step "MCP Inspector CLI against the installed copy: tools/list (four tools), then system1_decide and system1_ask"
  "$inspector" --cli node "$main" mcp -e SYSTEM1_PROVIDER=mock --method tools/list | grep '"name"'
  "$inspector" --cli node "$main" mcp -e SYSTEM1_PROVIDER=mock --method tools/call --tool-name system1_decide \
    --tool-arg "question=Is rm -rf build/ destructive?" | grep -E '"(status|decision|provider)"' | head -3
  "$inspector" --cli node "$main" mcp -e SYSTEM1_PROVIDER=mock --method tools/call --tool-name system1_ask \
    --tool-arg "state=The user asked about a refund." \
    --tool-arg 'questions=[{"id":"refund","type":"noul","instructions":"Is it about a refund?"},{"id":"topic","type":"choice","instructions":"Topic?","criteria":{"billing":"Billing","technical":null}}]' \
    | grep -E '"(probabilityTrue|value)"' | head -3
fi

step "hooks, with the stdin Claude Code sends (claude-code-formats.md 6.2, 6.3)"
printf '%s' '{"session_id":"6f1c2b7e-3d94-4a51-9c0e-8b2f5a7d1e36","transcript_path":"/x.jsonl","cwd":"/home/dev/work/shop-api","prompt_id":"2a9c4e61-8f0b-4d37-b5a2-6c1e9f3d7b40","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Review the auth module and check the migration script"}' \
  | sh "$repo/plugin/hooks/run.sh" route-hook; echo "route-hook exit $? (routing is off by default: silent)"
printf '%s' '{"session_id":"6f1c2b7e","cwd":"/home/dev/work/shop-api","hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":{"description":"Review auth module","prompt":"Review src/auth/","subagent_type":"general-purpose","model":"sonnet"},"tool_use_id":"toolu_01Fz8Kd2Lm5Np7Qr3St6Uv9W"}' \
  | sh "$repo/plugin/hooks/run.sh" spawn-hook; echo "spawn-hook exit $?"
sh "$repo/plugin/hooks/run.sh" session-check < /dev/null; echo "session-check exit $?"

step "uninstall.sh keeps the config; --purge removes it"
sh "$repo/uninstall.sh"
test ! -e "$HOME/.system1-gateway/app"
"$claude" mcp list | grep -q system1 && { echo "still registered"; exit 1; } || echo "no longer registered"
test -f "$HOME/.config/system1/config.toml" && echo "config kept"
sh "$repo/plugin/hooks/run.sh" session-check < /dev/null
sh "$repo/uninstall.sh" --purge >/dev/null
test ! -e "$HOME/.config/system1/config.toml" && echo "config purged"
rm -rf "$HOME"
echo; echo "plugin and install check passed"
