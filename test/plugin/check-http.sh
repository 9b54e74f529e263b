#!/bin/sh
# serve-http and mcp with real clients, in a throwaway HOME: the built server (dist/main.js, mock engine) on
# a free loopback port with a bearer token; Claude Code, told to negotiate the newest MCP revision
# (MCP_PROTOCOL_NEGOTIATION=auto), registers it (`claude mcp add --transport http ... --header
# "Authorization: Bearer ..."`) and `claude mcp list` shows it Connected, and not with a wrong token; it also
# registers `system1 mcp` over stdio, which must show Connected too. Then, when given, MCP Inspector's CLI
# lists the tools and calls system1_decide and system1_ask over HTTP, and lists and calls them over stdio.
# Pass Claude Code's CLI as $1 and optionally MCP Inspector's CLI as $2: both are devDependencies
# (node_modules/.bin/claude, node_modules/.bin/mcp-inspector); test/e2e/http-clients.spec.ts runs this.
# Each check prints "ok: <what>" or "FAIL: <what>"; the exit status is 0 only when every check passed.
# KEEP_HOME=1 keeps the throwaway HOME (the server's log, each client's output) to look at afterwards.
set -u
claude="${1:?usage: test/plugin/check-http.sh /path/to/claude [/path/to/mcp-inspector]}"
inspector="${2:-}"
repo=$(cd "$(dirname "$0")/../.." && pwd)
export HOME=$(mktemp -d /tmp/system1-http-clients-XXXXXX)
unset SYSTEM1_CONFIG XDG_CONFIG_HOME SYSTEM1_HTTP_TOKEN || true
# Claude Code probes for the 2026-07-28 revision (server/discover) only when told to.
export MCP_PROTOCOL_NEGOTIATION=auto
token="check-http-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
failed=0
server=""
step() { printf '\n== %s\n' "$*"; }
check() { # check "what" command...: runs the command, prints ok/FAIL with what
  what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failed=1; fi
}
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ -n "${KEEP_HOME:-}" ] || rm -rf "$HOME"
}
trap cleanup EXIT

step "serve-http on a free loopback port, with a token (mock engine)"
SYSTEM1_PROVIDER=mock SYSTEM1_INSTALL_DIR="$HOME/install" SYSTEM1_HTTP_TOKEN="$token" \
  node "$repo/dist/main.js" serve-http --port 0 2>"$HOME/server.log" &
server=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/.*listening on \(http:[^;]*\/mcp\).*/\1/p' "$HOME/server.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then echo "FAIL: serve-http did not start:"; cat "$HOME/server.log"; exit 1; fi
echo "ok: serve-http listening on $url"

step "claude mcp add --transport http, and over stdio, then claude mcp list (it connects to each)"
"$claude" mcp add --scope user --transport http system1 "$url" --header "Authorization: Bearer $token" >/dev/null
"$claude" mcp add --scope user --transport http system1-wrong-token "$url" --header "Authorization: Bearer not-$token" >/dev/null
"$claude" mcp add --scope user system1-stdio -e SYSTEM1_PROVIDER=mock -e SYSTEM1_INSTALL_DIR="$HOME/install" -- node "$repo/dist/main.js" mcp >/dev/null
"$claude" mcp list >"$HOME/list.txt" 2>&1
cat "$HOME/list.txt"
# "✔ Connected" alone: "! Connected · tools fetch failed" means Claude Code got no tools from the server.
check "claude mcp list shows system1 Connected, with its tools" grep -q "^system1: .* - ✔ Connected$" "$HOME/list.txt"
check "claude mcp list shows system1-stdio Connected, with its tools" grep -q "^system1-stdio: .* - ✔ Connected$" "$HOME/list.txt"
check "claude mcp list does not connect with a wrong token" sh -c "grep '^system1-wrong-token: ' '$HOME/list.txt' | grep -vq Connected"
check "claude keeps the token out of what it prints" sh -c "! grep -q '$token' '$HOME/list.txt'"

if [ -n "$inspector" ]; then
  auth="Authorization: Bearer $token"
  step "MCP Inspector CLI over HTTP: tools/list, then system1_decide and system1_ask"
  "$inspector" --cli "$url" --transport http --header "$auth" --method tools/list >"$HOME/tools.json" 2>"$HOME/inspector.err"
  check "inspector tools/list names the four tools" sh -c "for tool in system1_decide system1_health system1_capabilities system1_ask; do grep -q \"\\\"name\\\": \\\"\$tool\\\"\" '$HOME/tools.json' || exit 1; done"
  "$inspector" --cli "$url" --transport http --header "$auth" --method tools/call --tool-name system1_decide \
    --tool-arg "question=Rerun the flaky pipeline or block the merge?" 'options=["rerun the pipeline","block the merge"]' >"$HOME/decide.json" 2>>"$HOME/inspector.err"
  grep -E '"(status|decision|provider)"' "$HOME/decide.json" | head -3
  check "inspector tools/call system1_decide is decided" grep -q '"status": "decided"' "$HOME/decide.json"
  "$inspector" --cli "$url" --transport http --header "$auth" --method tools/call --tool-name system1_ask \
    --tool-arg 'state={"ticket":"I was charged twice"}' \
    'questions=[{"id":"queue","type":"choice","instructions":"Which queue?","criteria":{"billing":null,"support":null}}]' >"$HOME/ask.json" 2>>"$HOME/inspector.err"
  check "inspector tools/call system1_ask answers the question" grep -q '"value": "billing"' "$HOME/ask.json"
  # Without the token the inspector is refused (401, the server's sentence): no tool list comes back.
  "$inspector" --cli "$url" --transport http --method tools/list --stored-auth-only >"$HOME/refused.json" 2>&1
  check "inspector without the token is refused, and told why" sh -c "grep -q 'needs its token' '$HOME/refused.json' && ! grep -q system1_decide '$HOME/refused.json'"

  step "MCP Inspector CLI over stdio: tools/list, then system1_decide"
  stdio="-e SYSTEM1_PROVIDER=mock -e SYSTEM1_INSTALL_DIR=$HOME/install"
  # shellcheck disable=SC2086
  "$inspector" --cli $stdio node "$repo/dist/main.js" mcp --method tools/list >"$HOME/stdio-tools.json" 2>>"$HOME/inspector.err"
  check "inspector over stdio tools/list names the four tools" sh -c "for tool in system1_decide system1_health system1_capabilities system1_ask; do grep -q \"\\\"name\\\": \\\"\$tool\\\"\" '$HOME/stdio-tools.json' || exit 1; done"
  # shellcheck disable=SC2086
  "$inspector" --cli $stdio node "$repo/dist/main.js" mcp --method tools/call --tool-name system1_decide \
    --tool-arg "question=Rerun the flaky pipeline or block the merge?" 'options=["rerun the pipeline","block the merge"]' >"$HOME/stdio-decide.json" 2>>"$HOME/inspector.err"
  check "inspector over stdio tools/call system1_decide is decided" grep -q '"status": "decided"' "$HOME/stdio-decide.json"
  [ "$failed" = 0 ] || cat "$HOME/inspector.err"
fi

step "the server's log"
grep -c ' POST /mcp ' "$HOME/server.log" | sed 's/^/requests logged: /'
check "the token never appears in the server's log" sh -c "! grep -q '$token' '$HOME/server.log'"
check "claude negotiated the 2026-07-28 revision over HTTP (server/discover answered)" grep -q ' POST /mcp server/discover -> 200 ' "$HOME/server.log"

echo
if [ "$failed" = 0 ]; then echo "http clients check passed"; else echo "http clients check FAILED"; fi
exit "$failed"
